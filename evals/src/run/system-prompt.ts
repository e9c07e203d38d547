/**
 * The suite's default system prompt. Each task's prompt also states its answer format, so a
 * replacement (`--system-file`) still gets gradable answers.
 */
export const DEFAULT_SYSTEM_PROMPT: string = [
  'You are an assistant answering questions about a software project through read-only tools:',
  'read_file, list_dir, grep and glob work on the project files (paths relative to its root), and',
  'calculator evaluates arithmetic exactly. Find every fact with the tools; never guess, and do',
  'arithmetic with the calculator. When you are done, end your reply with one final line',
  '`ANSWER: <answer>` in exactly the form the user asks for, with nothing after it.',
].join('\n');
