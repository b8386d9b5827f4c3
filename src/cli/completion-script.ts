/**
 * `mcp-host completion bash|zsh|fish`: shell completion scripts. Commands and their options are
 * written into the script when it is generated (from the program itself, so they never drift);
 * server and tool names are asked of mcp-host at completion time through the hidden
 * `mcp-host __complete servers|tools` (servers from the config only: instant; tools connect to
 * the servers, each within 3 s, so they take a moment). The bash script passes the line's
 * `--config` on; zsh and fish use the default config (MCP_HOST_CONFIG, or the discovered files).
 */
import type { Command } from 'commander';

export const completionShells = ['bash', 'zsh', 'fish'] as const;
export type CompletionShell = (typeof completionShells)[number];

/** What the script needs to know: each command path and its options. */
export interface CompletionTree {
  /** Top-level command names. */
  commands: string[];
  /** Subcommands by parent (`servers` → `list status …`). */
  subcommands: Record<string, string[]>;
  /** Global options. */
  options: string[];
  /** Commands whose first argument is a server name. */
  serverCommands: string[];
  /** Commands whose first argument is a tool (`server/tool`). */
  toolCommands: string[];
  /** Options of any command that take a value (`--timeout`, `-c`...): the next word is theirs. */
  valueOptions: string[];
  /** The values an option accepts, when it has a fixed list (`--format` → `table json`). */
  choices: Record<string, string[]>;
  /** Options whose value is a file name (the shell's own file completion applies). */
  fileOptions: string[];
}

/** Options whose value is a path: bash completes file names after them. */
const FILE_OPTIONS = new Set(['--config', '-c', '--out', '-o']);

const SERVER_ARGUMENT = new Set(['tools', 'inspect', 'resources', 'prompts', 'doctor', 'watch']);
const SERVER_SUBCOMMAND = new Set(['enable', 'disable', 'restart']);
const TOOL_ARGUMENT = new Set(['call']);

export function completionTree(program: Command): CompletionTree {
  const visible = (c: Command) => !c.name().startsWith('_');
  const commands = program.commands.filter(visible);
  const subcommands: Record<string, string[]> = {};
  for (const c of commands) {
    const subs = c.commands.filter(visible).map((s) => s.name());
    if (subs.length > 0) subcommands[c.name()] = subs;
  }
  const options = program.options.flatMap((o) => [o.long, o.short]).filter((o) => o !== undefined);
  const names = commands.map((c) => c.name());
  const everyCommand = (c: Command): Command[] => [c, ...c.commands.flatMap(everyCommand)];
  const valueOptions = new Set<string>();
  const choices: Record<string, string[]> = {};
  for (const option of everyCommand(program).flatMap((c) => c.options)) {
    if (!option.required && !option.optional) continue;
    for (const flag of [option.long, option.short]) {
      if (flag === undefined) continue;
      valueOptions.add(flag);
      if (option.argChoices !== undefined) choices[flag] = [...option.argChoices];
    }
  }
  return {
    commands: names,
    subcommands,
    options: [...options, '--help'],
    serverCommands: [
      ...names.filter((n) => SERVER_ARGUMENT.has(n)),
      ...Object.entries(subcommands).flatMap(([parent, subs]) =>
        subs.filter((s) => SERVER_SUBCOMMAND.has(s)).map((s) => `${parent} ${s}`),
      ),
    ],
    toolCommands: names.filter((n) => TOOL_ARGUMENT.has(n)),
    valueOptions: [...valueOptions],
    choices,
    fileOptions: [...valueOptions].filter((o) => FILE_OPTIONS.has(o)),
  };
}

export function completionScript(
  shell: CompletionShell,
  tree: CompletionTree,
  bin = 'mcp-host',
): string {
  switch (shell) {
    case 'bash':
      return bashScript(tree, bin);
    case 'zsh':
      return zshScript(tree, bin);
    case 'fish':
      return fishScript(tree, bin);
  }
}

/**
 * The bash script. Names asked of mcp-host (servers, tools: they come from the config and from
 * servers) are read one per line and never given to `compgen -W`, which would split them at
 * spaces and expand `$(…)` in them: each is escaped with `printf %q`, as it must be typed, and
 * kept when it starts with the word being completed. After an option that takes a value, its
 * choices are offered (`--format`), file names for a path (`--config`, `--out`), else nothing;
 * such a value never counts as the command or its argument.
 */
function bashScript(tree: CompletionTree, bin: string): string {
  const fn = `_${bin.replace(/[^A-Za-z0-9]/g, '_')}_complete`;
  const subs = Object.entries(tree.subcommands)
    .map(([parent, list]) => `    ${parent}) subs="${list.join(' ')}" ;;`)
    .join('\n');
  const valueOptions = tree.valueOptions.filter((o) => o !== '--config' && o !== '-c');
  const choices = Object.entries(tree.choices)
    .map(
      ([option, list]) =>
        `    ${option}) COMPREPLY=($(compgen -W "${list.join(' ')}" -- "$cur")); return ;;`,
    )
    .join('\n');
  const noValues = tree.valueOptions.filter(
    (o) => tree.choices[o] === undefined && !tree.fileOptions.includes(o),
  );
  const names = (what: 'servers' | 'tools') =>
    `${fn}_names "$cur" < <(${bin} "\${cfg[@]}" __complete ${what} 2>/dev/null)`;
  return `# ${bin} completion for bash. Install: ${bin} completion bash > ~/.local/share/bash-completion/completions/${bin}
# (or: source <(${bin} completion bash) in ~/.bashrc)
# Reads names one per line; keeps those that start with $1, each escaped as it must be typed.
${fn}_names() {
  local line quoted
  COMPREPLY=()
  while IFS= read -r line; do
    [[ -z "$line" ]] && continue
    printf -v quoted '%q' "$line"
    [[ "$quoted" == "$1"* ]] && COMPREPLY+=("$quoted")
  done
  return 0
}
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="" cmd="" sub="" i w
  local -a cfg=()
  # An option's value: the previous word, or the one before an '=' (--format=json).
  if ((COMP_CWORD > 1)); then
    prev="\${COMP_WORDS[COMP_CWORD-1]}"
    [[ "$prev" == "=" ]] && prev="\${COMP_WORDS[COMP_CWORD-2]}"
  fi
  [[ "$cur" == "=" ]] && { prev="\${COMP_WORDS[COMP_CWORD-1]}"; cur=""; }
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "\${COMP_WORDS[i+1]}" == "=" ]] && ((i++))
    case "$w" in
      --config|-c) cfg+=(--config "\${COMP_WORDS[i+1]}"); ((i++)); continue ;;
      ${valueOptions.join('|')}) ((i++)); continue ;;
      -*) continue ;;
    esac
    if [[ -z "$cmd" ]]; then cmd="$w"; elif [[ -z "$sub" ]]; then sub="$w"; else sub="$sub $w"; fi
  done
  case "$prev" in
${choices}
    ${tree.fileOptions.join('|')}) COMPREPLY=(); return ;;
    ${noValues.join('|')}) compopt +o default 2>/dev/null; COMPREPLY=(); return ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "${tree.options.join(' ')}" -- "$cur")); return
  fi
  if [[ -z "$cmd" ]]; then
    COMPREPLY=($(compgen -W "${tree.commands.join(' ')}" -- "$cur")); return
  fi
  local subs=""
  case "$cmd" in
${subs}
  esac
  if [[ -n "$subs" && -z "$sub" ]]; then
    COMPREPLY=($(compgen -W "$subs" -- "$cur")); return
  fi
  case "$cmd $sub" in
${tree.serverCommands.map((c) => `    "${c.includes(' ') ? c : `${c} `}"*) ${names('servers')} ;;`).join('\n')}
${tree.toolCommands.map((c) => `    "${c} ") ${names('tools')} ;;`).join('\n')}
  esac
}
complete -o default -F ${fn} ${bin}
`;
}

function zshScript(tree: CompletionTree, bin: string): string {
  const subs = Object.entries(tree.subcommands)
    .map(([parent, list]) => `      ${parent}) compadd -- ${list.join(' ')} ;;`)
    .join('\n');
  const servers = tree.serverCommands.filter((c) => !c.includes(' '));
  const serverSubs = tree.serverCommands.filter((c) => c.includes(' '));
  return `#compdef ${bin}
# ${bin} completion for zsh. Install: ${bin} completion zsh > "\${fpath[1]}/_${bin}" (or: source <(${bin} completion zsh))
_${bin.replace(/[^A-Za-z0-9]/g, '_')}() {
  local -a words_; words_=(\${words[2,CURRENT-1]:#-*})
  if [[ "$PREFIX" == -* ]]; then compadd -- ${tree.options.join(' ')}; return; fi
  if (( \${#words_} == 0 )); then compadd -- ${tree.commands.join(' ')}; return; fi
  local cmd="\${words_[1]}" sub="\${words_[2]}"
  if (( \${#words_} == 1 )); then
    case "$cmd" in
${subs}
${servers.map((c) => `      ${c}) compadd -- \${(f)"$(${bin} __complete servers 2>/dev/null)"} ;;`).join('\n')}
${tree.toolCommands.map((c) => `      ${c}) compadd -- \${(f)"$(${bin} __complete tools 2>/dev/null)"} ;;`).join('\n')}
    esac
    return
  fi
  case "$cmd $sub" in
${serverSubs.map((c) => `    "${c}") compadd -- \${(f)"$(${bin} __complete servers 2>/dev/null)"} ;;`).join('\n')}
  esac
}
compdef _${bin.replace(/[^A-Za-z0-9]/g, '_')} ${bin}
`;
}

function fishScript(tree: CompletionTree, bin: string): string {
  const lines = [
    `# ${bin} completion for fish. Install: ${bin} completion fish > ~/.config/fish/completions/${bin}.fish`,
    `complete -c ${bin} -f`,
    `complete -c ${bin} -n __fish_use_subcommand -a '${tree.commands.join(' ')}'`,
  ];
  for (const [parent, list] of Object.entries(tree.subcommands))
    lines.push(
      `complete -c ${bin} -n '__fish_seen_subcommand_from ${parent}; and not __fish_seen_subcommand_from ${list.join(' ')}' -a '${list.join(' ')}'`,
    );
  for (const c of tree.serverCommands) {
    const [parent, sub] = c.split(' ');
    const condition =
      sub === undefined
        ? `__fish_seen_subcommand_from ${parent}`
        : `__fish_seen_subcommand_from ${parent}; and __fish_seen_subcommand_from ${sub}`;
    lines.push(`complete -c ${bin} -n '${condition}' -a '(${bin} __complete servers 2>/dev/null)'`);
  }
  for (const c of tree.toolCommands)
    lines.push(
      `complete -c ${bin} -n '__fish_seen_subcommand_from ${c}' -a '(${bin} __complete tools 2>/dev/null)'`,
    );
  for (const option of tree.options)
    if (option.startsWith('--')) lines.push(`complete -c ${bin} -l ${option.slice(2)}`);
  return `${lines.join('\n')}\n`;
}
