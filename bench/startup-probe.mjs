// Startup costs of one implementation, in a fresh process. Prints one JSON line.
//
//   node bench/startup-probe.mjs import <impl>   time to import the client's modules
//   node bench/startup-probe.mjs memory <impl>   memory after import, connect, one call
//
// `impl` is ours, sdk, raw, or none (a bare node process: the baseline both figures are read
// against). Import time covers what a program imports to talk to a stdio server: ours the root
// and stdio entries, the SDK its client and stdio transport, raw its hand-written client module
// (which imports node:child_process). Memory is read the same way for every implementation,
// after a full garbage collection.
import { fileURLToPath } from 'node:url';
import { IMPORT_ENTRY_POINTS } from './config.mjs';

const SERVER_PATH = fileURLToPath(new URL('./echo-server.mjs', import.meta.url));

const [mode, impl] = process.argv.slice(2);
const entryPoints = impl === 'none' ? [] : IMPORT_ENTRY_POINTS[impl];
if (entryPoints === undefined || (mode !== 'import' && mode !== 'memory')) {
  throw new Error('usage: startup-probe.mjs import|memory none|<an implementation of config.mjs>');
}

if (mode === 'import') {
  const start = performance.now();
  for (const specifier of entryPoints) await import(specifier);
  const importMs = performance.now() - start;
  process.stdout.write(`${JSON.stringify({ impl, importMs })}\n`);
} else {
  let connection;
  if (impl !== 'none') {
    const { connect } = await import(`./clients/${impl}.mjs`);
    connection = await connect({ command: process.execPath, args: [SERVER_PATH] });
    await connection.call({ text: 'hello' });
  }
  const { gc } = await import('./lib/gc.mjs');
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  const { rss, heapUsed } = process.memoryUsage();
  process.stdout.write(
    `${JSON.stringify({ impl, rss, heapUsed, serverPid: connection?.pid ?? null })}\n`,
  );
  await connection?.close();
}
