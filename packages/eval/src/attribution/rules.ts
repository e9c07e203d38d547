import { contextCompactedFact, contextCompaction } from './context.js';
import { evalCheckThrew, evalFactoryThrew } from './eval.js';
import {
  harnessException,
  harnessGuard,
  harnessPermissionDenied,
  harnessReplayDrift,
} from './harness.js';
import { infraProviderError } from './infra.js';
import { modelRefused, modelRepeatedCall, modelUnknownTool, WRONG_ANSWER_RULE } from './model.js';
import { promptAskedUser, promptFormat, promptOutputInvalid } from './prompt.js';
import type { AttributionRule } from './rule.js';
import { toolGuardWhileFailing, toolInvalidArguments, toolRuntimeError } from './tool.js';

/**
 * SPEC.md's attribution rules in order, layer by layer (infra, eval, harness, context, tool,
 * prompt, model); the first that holds wins. This array is the one place the order is kept: each
 * layer's file holds its rules, never their rank. The last, `model/wrong-answer`, always holds.
 */
export const ATTRIBUTION_RULES: readonly AttributionRule[] = Object.freeze([
  infraProviderError,
  evalCheckThrew,
  evalFactoryThrew,
  harnessReplayDrift,
  harnessException,
  harnessPermissionDenied,
  harnessGuard,
  contextCompactedFact,
  contextCompaction,
  toolGuardWhileFailing,
  toolRuntimeError,
  toolInvalidArguments,
  promptOutputInvalid,
  promptFormat,
  promptAskedUser,
  modelRefused,
  modelUnknownTool,
  modelRepeatedCall,
  WRONG_ANSWER_RULE,
]);
