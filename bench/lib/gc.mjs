// A full garbage collection without starting node with --expose-gc: that flag makes V8 reject
// Node's code cache for its built-in modules, which slows every later import of one (by about
// 6 ms for node:child_process) and adds their bytecode to the heap. Import this module only
// after the code being measured is loaded.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');

/** Runs a full garbage collection. */
export const gc = runInNewContext('gc');
