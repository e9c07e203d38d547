// `@mh/tools/zod-free`: every export of `@mh/tools` but `z`, so importing it does not load zod
// (70-100 ms): the built-in tools use plain JSON Schemas and `defineTool` uses the schema it is
// given. `@mh/sdk` imports this entry, which keeps the CLI's cold start short (issue 16).
// zod-free.test.ts checks that the two entries export the same names.
export { evaluateArithmetic, MAX_EXPRESSION_CHARS } from './arithmetic.js';
export { type CalculatorInput, calculatorTool } from './calculator-tool.js';
export {
  type ApproveCallback,
  type DefaultPermissionPolicyOptions,
  defaultPermissionPolicy,
} from './default-permission-policy.js';
export { defineTool, type ToolDefinition } from './define-tool.js';
export {
  SpotlightingExecutor,
  type SpotlightingExecutorOptions,
  ToolExecutor,
  type ToolExecutorOptions,
} from './deprecated-names.js';
export { FencingExecutor, type FencingExecutorOptions } from './fencing-executor.js';
export {
  DEFAULT_MAX_RESULT_CHARS,
  PolicyToolExecutor,
  type PolicyToolExecutorOptions,
} from './policy-tool-executor.js';
export { TOOL_NAME_PATTERN } from './tool-fields.js';
export { ToolRegistry } from './tool-registry.js';
export { fenceToolResult, unfenceToolResult } from './tool-result-fence.js';
export type { ToolRetryOptions } from './tool-retry.js';
export { isTransientError, TRANSIENT_ERROR_CODES } from './transient-error.js';
export { truncateMiddle, truncationMarker } from './truncate-text.js';
export { DEFAULT_IGNORED_DIRECTORIES } from './workspace/walk-files.js';
export type { WorkspaceToolsOptions } from './workspace/workspace-settings.js';
export { workspaceTools } from './workspace/workspace-tools.js';
export { isZodSchema, zodOutputSchema, zodToolSchema } from './zod-tool-schema.js';
