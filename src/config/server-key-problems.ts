import { serverKeyProblems } from '../host/naming/name-assignment.js';
import type { ServerKeyProblem, ToolNamingOptions } from '../host/naming/namer.js';

/** Why a configured server key cannot be used: the host's reasons, or a `/` in it. */
export interface ConfigServerKeyProblem extends Omit<ServerKeyProblem, 'reason'> {
  readonly reason: ServerKeyProblem['reason'] | 'slash';
}

/**
 * Why each of these configured server keys cannot be used: the host's reasons
 * (`serverKeyProblems`: empty, the separator, too long, the same as another once sanitised), and
 * a `/`, which the command line reads as the end of the server's name (`call a/b/tool` names the
 * server `a`), so such a server could not be addressed. Throws as `serverKeyProblems` does for
 * invalid naming options.
 */
export function configServerKeyProblems(
  servers: Iterable<string>,
  naming?: ToolNamingOptions,
): ConfigServerKeyProblem[] {
  const names = [...servers];
  const problems: ConfigServerKeyProblem[] = serverKeyProblems(names, naming);
  const known = new Set(problems.map((problem) => problem.server));
  for (const server of new Set(names)) {
    if (known.has(server) || !server.includes('/')) continue;
    problems.push({
      server,
      reason: 'slash',
      message: `server key ${JSON.stringify(server)} contains '/', which the command line reads as the end of a server's name ('call ${server}/tool' names the server ${JSON.stringify(server.slice(0, server.indexOf('/')))}); rename it, for example to ${JSON.stringify(server.replaceAll('/', '-'))}`,
    });
  }
  return problems;
}
