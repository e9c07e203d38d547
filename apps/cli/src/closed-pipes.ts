/** The error codes of a write whose reader has gone (`mh … | head -1` after head exits). */
const GONE = new Set(['EPIPE', 'ERR_STREAM_DESTROYED']);

/** The streams and exit `quietOnClosedPipes` acts on: the process's own, or a test's. */
export interface ProcessPipes {
  readonly stdout: NodeJS.EventEmitter;
  readonly stderr: NodeJS.EventEmitter & { write(text: string): unknown };
  readonly exit: (code: number) => void;
}

/**
 * Makes the reader of stdout or stderr going away an ordinary end, not a crash with a stack trace.
 * Node ignores SIGPIPE, so a write to a closed pipe fails with EPIPE, emitted as an `error` event
 * that crashes the process when nobody listens. Must run before the first write.
 *
 * Stdout gone: nobody can read the answers any more, so mh exits at once with 0, as `head`'s
 * writer would (running the remaining piped prompts would only spend tokens). MCP server groups
 * are killed on exit; a session's unfinished turn is finished on the next `--session`, as after
 * a crash. Stderr gone: only the notes are lost; the answer on stdout goes on.
 */
export function quietOnClosedPipes(pipes: ProcessPipes = process): void {
  pipes.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (GONE.has(error.code ?? '')) {
      pipes.exit(0);
      return;
    }
    pipes.stderr.write(`mh: cannot write to stdout: ${error.message}\n`);
    pipes.exit(1);
  });
  // Nothing can report a failure of stderr itself; later writes to it are dropped.
  pipes.stderr.on('error', () => {});
}
