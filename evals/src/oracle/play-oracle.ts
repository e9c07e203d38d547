import { type Grade, gradeSession } from '../grading/grade.js';
import { type AgentSettings, sessionAgent } from '../run/session-agent.js';
import { SessionRecorder } from '../run/session-recorder.js';
import type { Task } from '../tasks/task.js';
import type { Workspace } from '../workspace/generate-workspace.js';
import type { OraclePolicy } from './oracle-policy.js';
import { OracleProvider } from './oracle-provider.js';

/** A session played by an oracle (or a saboteur), with its grade. */
export interface PlayedSession {
  readonly grade: Grade;
  readonly recorder: SessionRecorder;
  readonly provider: OracleProvider;
}

/**
 * Plays every prompt of `task` on a fresh Agent whose model is `policy` (the task's oracle by
 * default): the tools really run on the workspace at `settings.workspaceRoot`, and the session is
 * graded like a real one.
 */
export async function playOracle(
  task: Task,
  workspace: Pick<Workspace, 'files'>,
  settings: Omit<AgentSettings, 'provider'>,
  policy: OraclePolicy = task.oracle,
): Promise<PlayedSession> {
  const provider = new OracleProvider(policy, task.prompts);
  const recorder = new SessionRecorder(sessionAgent(task, { ...settings, provider }));
  for (const prompt of task.prompts) {
    for await (const _event of recorder.stream(prompt)) {
      // Recorded by the recorder; nothing else to do with the events here.
    }
    if (recorder.results.at(-1)?.status !== 'completed') break;
  }
  return { grade: gradeSession(task, workspace, recorder.trace()), recorder, provider };
}
