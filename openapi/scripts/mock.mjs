#!/usr/bin/env node
// `npm run mock`: Prism's mock server of the contract, on 127.0.0.1:4010 unless the arguments name
// another host or port (`npm run mock -- --port 4011`). Every argument is passed on to `prism mock`;
// the defaults are added only for what the arguments leave out.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The defaults, each added unless one of its flags is among the arguments. */
const defaults = [
  { flags: ['--host', '-h'], value: '127.0.0.1' },
  { flags: ['--port', '-p'], value: '4010' },
];

/**
 * The arguments of `prism mock` for the arguments `args` given to `npm run mock`.
 *
 * @param {readonly string[]} args
 * @returns {string[]}
 */
export function prismMockArguments(args) {
  const given = (flag) => args.some((arg) => arg === flag || arg.startsWith(`${flag}=`));
  const added = defaults.filter(({ flags }) => !flags.some(given)).flatMap(({ flags, value }) => [flags[0], value]);
  return ['mock', fileURLToPath(new URL('../openapi.yaml', import.meta.url)), ...added, ...args];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const prism = spawn('prism', prismMockArguments(process.argv.slice(2)), { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => prism.kill(signal));
  prism.once('error', (error) => {
    process.stderr.write(`mock: cannot start prism: ${error.message} (run npm install)\n`);
    process.exit(1);
  });
  prism.once('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 0)));
}
