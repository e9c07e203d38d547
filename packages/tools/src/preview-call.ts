import type {
  Permission,
  PermissionPolicy,
  PermissionPreview,
  ToolCallPreview,
  ToolUseBlock,
} from '@mh/core';
import { admitCall, policyFailureReason } from './execute-call.js';
import type { ToolRegistry } from './tool-registry.js';

/**
 * Says what `executeCall` would do with `call` without running the tool or asking anyone: the
 * same look-up and argument checks, then the policy's `preview` (never `check`, which may prompt a
 * human). A policy without `preview` makes the answer `undecidable`; a `preview` that throws is a
 * denial, as a `check` that throws is.
 */
export async function previewCall(
  call: ToolUseBlock,
  registry: ToolRegistry,
  policy: PermissionPolicy,
): Promise<ToolCallPreview> {
  const admitted = admitCall(call, registry);
  if (!admitted.ok) {
    const permission = admitted.tool?.permission;
    const idempotent = admitted.tool?.idempotent;
    return {
      decision: admitted.status,
      ...(permission ? { permission } : {}),
      ...(idempotent === undefined ? {} : { idempotent }),
      reason: admitted.text,
    };
  }
  const { tool, input } = admitted;
  const permission = tool.permission;
  const preview = await previewAdmitted(call, tool.name, permission, input, policy);
  return {
    ...preview,
    ...(tool.deterministic === true ? { deterministic: true } : {}),
    ...(tool.idempotent === undefined ? {} : { idempotent: tool.idempotent }),
  };
}

/** The policy's answer for an admitted call, as a preview. */
async function previewAdmitted(
  call: ToolUseBlock,
  toolName: string,
  permission: Permission,
  input: unknown,
  policy: PermissionPolicy,
): Promise<ToolCallPreview> {
  if (typeof policy.preview !== 'function') {
    return { decision: 'undecidable', permission, reason: 'the permission policy has no preview' };
  }
  let answer: PermissionPreview;
  try {
    answer = await policy.preview({ toolName, permission, input, callId: call.id });
  } catch (error) {
    return { decision: 'denied', permission, reason: policyFailureReason(error) };
  }
  if (answer === 'ask') return { decision: 'ask', permission };
  if (answer.allow) return { decision: 'run', permission };
  return { decision: 'denied', permission, reason: answer.reason };
}
