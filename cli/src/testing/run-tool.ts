/**
 * Test support: runs the compiled binaries of this package in child processes, with a given
 * environment and standard input (not a terminal), or through a pseudo-terminal driven by python3's
 * `pty` module (prompts are answered when their text appears).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { entryPoint, nodeArguments } from '@svc/server/testing';

/** The tools' entry points (TypeScript sources in tests; run them with `nodeArguments`). */
export const tools = {
  svc: entryPoint('../bin/svc', import.meta.url),
  reset: entryPoint('../bin/svc-reset-auth-password', import.meta.url),
  migrate: entryPoint('../bin/svc-migrate-auth', import.meta.url),
  unban: entryPoint('../bin/svc-unban', import.meta.url),
  migrateStorage: entryPoint('../bin/svc-migrate-storage', import.meta.url),
} as const;

/** How a run ended. */
export interface ToolResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `script` with `args`; `input` is written to its stdin (then closed). */
export function runTool(script: string, args: readonly string[], options: { env: Record<string, string>; input?: string }): Promise<ToolResult> {
  const child = spawn(process.execPath, nodeArguments(script, args), { env: { PATH: process.env['PATH'] ?? '', ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(options.input ?? '');
  return outcome(child);
}

/** How `child` ends: its exit code and everything it wrote. */
function outcome(child: ChildProcess & { stdout: Readable; stderr: Readable }): Promise<ToolResult> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Parses the JSON a `--json` run printed. */
export function jsonOf<T = unknown>(result: ToolResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${result.code}): ${result.stdout} / ${result.stderr}`);
  }
}

const PTY_DRIVER = String.raw`
import fcntl, json, os, pty, re, select, struct, sys, termios
spec = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    if spec.get('columns'):
        fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack('HHHH', 50, spec['columns'], 0, 0))
    os.execve(spec['argv'][0], spec['argv'], spec['env'])
out = b''
answers = spec['answers']
index = 0
position = 0
while True:
    ready, _, _ = select.select([fd], [], [], 30)
    if not ready:
        os.kill(pid, 9)
        break
    try:
        data = os.read(fd, 4096)
    except OSError:
        break
    if not data:
        break
    out += data
    while index < len(answers):
        match = re.compile(answers[index][0].encode()).search(out, position)
        if match is None:
            break
        position = match.end()
        os.write(fd, answers[index][1].encode())
        index += 1
_, status = os.waitpid(pid, 0)
print(json.dumps({'code': os.waitstatus_to_exitcode(status), 'output': out.decode('utf-8', 'replace'), 'answered': index}))
`;

/** How a run in a pseudo-terminal ended: stdout and stderr both went to the terminal. */
export interface PtyResult {
  code: number;
  /** Everything the terminal showed. */
  output: string;
  /** How many prompts were answered. */
  answered: number;
}

/**
 * Runs `script` in a pseudo-terminal (`columns` wide when given). Each answer is `[regex, text]`:
 * when the terminal shows text matching the regex (after the previous match), `text` is typed (end
 * it with `\r` for Enter).
 */
export async function runInPty(
  script: string,
  args: readonly string[],
  options: { env: Record<string, string>; answers: readonly [string, string][]; columns?: number },
): Promise<PtyResult> {
  const spec = {
    argv: [process.execPath, ...nodeArguments(script, args)],
    env: { PATH: process.env['PATH'] ?? '', TERM: 'dumb', ...options.env },
    answers: options.answers,
    columns: options.columns ?? null,
  };
  // Asynchronous: the server under test may run in this very process.
  const run = await runPython(JSON.stringify(spec));
  if (run.code !== 0) throw new Error(`pty driver failed (${run.code}): ${run.stderr}`);
  return JSON.parse(run.stdout) as PtyResult;
}

function runPython(spec: string): Promise<ToolResult> {
  return outcome(spawn('python3', ['-c', PTY_DRIVER, spec], { stdio: ['ignore', 'pipe', 'pipe'] }));
}
