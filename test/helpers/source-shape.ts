/**
 * The shape of src/ as its import and export statements tell it (TypeScript's parser, no type
 * checking): which module imports which (`import type` included: a cycle of concepts is a cycle),
 * which names each module declares and exports, and which re-export what.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface SourceModule {
  /** Relative to src/, with `/`. */
  readonly path: string;
  /** The modules of src/ it imports or re-exports from, statically. */
  readonly imports: ReadonlySet<string>;
  /** The names it declares and exports. */
  readonly declares: readonly string[];
  /** Those of them that are only values (constants and functions: no type of that name). */
  readonly valuesOnly: readonly string[];
  /** Its re-export statements (`export ... from`, or exporting an imported binding), as text. */
  readonly reexports: readonly string[];
}

/** Source files (not tests, not test helpers, not declarations) under `srcDir`. */
export function sourceModules(srcDir: string): Map<string, SourceModule> {
  const modules = new Map<string, SourceModule>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (
        entry.name.endsWith('.ts') &&
        !/\.test\.ts$|-test-helpers\.ts$|\.d\.ts$/.test(entry.name)
      ) {
        const module = readModule(srcDir, path);
        modules.set(module.path, module);
      }
    }
  };
  walk(srcDir);
  return modules;
}

function readModule(srcDir: string, file: string): SourceModule {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const imports = new Set<string>();
  const declares: string[] = [];
  const valuesOnly: string[] = [];
  const reexports: string[] = [];
  const imported = new Set<string>();
  const target = (specifier: string): string | undefined =>
    specifier.startsWith('.')
      ? relative(srcDir, resolve(dirname(file), specifier.replace(/\.js$/, '.ts'))).replaceAll(
          '\\',
          '/',
        )
      : undefined;
  const exported = (node: ts.Node): boolean =>
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const to = target(statement.moduleSpecifier.text);
      if (to !== undefined) imports.add(to);
      const clause = statement.importClause;
      if (clause?.name !== undefined) imported.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings !== undefined && ts.isNamedImports(bindings))
        for (const element of bindings.elements) imported.add(element.name.text);
      else if (bindings !== undefined) imported.add(bindings.name.text);
    } else if (ts.isExportDeclaration(statement)) {
      if (
        statement.moduleSpecifier !== undefined &&
        ts.isStringLiteral(statement.moduleSpecifier)
      ) {
        const to = target(statement.moduleSpecifier.text);
        if (to !== undefined) imports.add(to);
        reexports.push(statement.getText(source));
      } else if (
        statement.exportClause !== undefined &&
        ts.isNamedExports(statement.exportClause)
      ) {
        for (const element of statement.exportClause.elements) {
          const local = (element.propertyName ?? element.name).text;
          if (imported.has(local)) reexports.push(statement.getText(source));
          else declares.push(element.name.text);
        }
      }
    } else if (exported(statement)) {
      if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations)
          if (ts.isIdentifier(declaration.name)) {
            declares.push(declaration.name.text);
            valuesOnly.push(declaration.name.text);
          }
      } else if (
        (ts.isFunctionDeclaration(statement) ||
          ts.isClassDeclaration(statement) ||
          ts.isInterfaceDeclaration(statement) ||
          ts.isTypeAliasDeclaration(statement) ||
          ts.isEnumDeclaration(statement)) &&
        statement.name !== undefined
      ) {
        declares.push(statement.name.text);
        if (ts.isFunctionDeclaration(statement)) valuesOnly.push(statement.name.text);
      }
    }
  }
  // A type and a value of one name (`ErrorCode`), or overloads, are one declaration.
  return {
    path: relative(srcDir, file).replaceAll('\\', '/'),
    imports,
    declares: [...new Set(declares)],
    // A name declared as a type too (`ErrorCode`) is not only a value.
    valuesOnly: [...new Set(valuesOnly)].filter(
      (name) => declares.filter((declared) => declared === name).length === 1,
    ),
    reexports,
  };
}

/** Every strongly connected component of more than one module (or a module importing itself). */
export function importCycles(modules: ReadonlyMap<string, SourceModule>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of modules.get(v)?.imports ?? []) {
      if (!modules.has(w)) continue;
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || modules.get(v)?.imports.has(v) === true)
        cycles.push(component.sort());
    }
  };
  for (const v of modules.keys()) if (!indexOf.has(v)) visit(v);
  return cycles;
}

/**
 * Every name an entry file exports (types and values), sorted: its export lists, and for an
 * `export * from` (or `export type *`) the names the target module declares.
 */
export function entryExports(srcDir: string, entry: string): string[] {
  const modules = sourceModules(srcDir);
  const file = resolve(srcDir, entry);
  const source = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.ES2022,
    true,
  );
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    if (statement.exportClause !== undefined && ts.isNamedExports(statement.exportClause)) {
      for (const element of statement.exportClause.elements) names.add(element.name.text);
    } else if (
      statement.exportClause === undefined &&
      statement.moduleSpecifier !== undefined &&
      ts.isStringLiteral(statement.moduleSpecifier)
    ) {
      const target = relative(
        srcDir,
        resolve(dirname(file), statement.moduleSpecifier.text.replace(/\.js$/, '.ts')),
      ).replaceAll('\\', '/');
      // `export type *` passes on types only: a constant or a function of the module is not one.
      const module = modules.get(target);
      for (const name of module?.declares ?? [])
        if (!statement.isTypeOnly || !module!.valuesOnly.includes(name)) names.add(name);
    }
  }
  return [...names].sort();
}
