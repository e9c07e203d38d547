import {
  ConfigError,
  type Permission,
  type PermissionDecision,
  type PermissionPolicy,
  type PermissionPreview,
  type PermissionRequest,
} from '@mh/core';
import { assertOptions } from '@mh/core/internal';
import { isPermission } from './tool-fields.js';

/** Asks someone (a terminal prompt, a UI) whether one call may run; true allows it. */
export type ApproveCallback = (request: PermissionRequest) => boolean | Promise<boolean>;

/** Settings of `defaultPermissionPolicy`. */
export interface DefaultPermissionPolicyOptions {
  /**
   * Permissions granted up front, e.g. `['write']`; `read` is always granted. Each grant is
   * exact: `exec` does not imply `write`.
   */
  readonly grants?: readonly Permission[];
  /** Asked for each call whose permission is not granted; absent means deny. */
  readonly approve?: ApproveCallback;
}

/**
 * The default policy: `read` is allowed; `write` and `exec` need a grant or a yes from `approve`.
 * A denial's reason tells the model (and the user) how to grant it, e.g.
 * `'write' tools are not allowed in this session`. Its `preview` answers the same without asking:
 * `'ask'` where `check` would call `approve`.
 */
export function defaultPermissionPolicy(
  options: DefaultPermissionPolicyOptions = {},
): PermissionPolicy {
  // A misspelt `grants` would otherwise deny every write and exec call without saying why.
  assertOptions(options, ['grants', 'approve'], '');
  const grants = options.grants ?? [];
  if (!Array.isArray(grants) || !grants.every(isPermission)) {
    throw new ConfigError('grants', "expected an array of 'read', 'write' or 'exec'");
  }
  const approve = options.approve;
  if (approve !== undefined && typeof approve !== 'function') {
    throw new ConfigError('approve', 'expected a function');
  }
  const granted = new Set<Permission>(['read', ...grants]);
  const preview = (request: PermissionRequest): PermissionPreview => {
    if (granted.has(request.permission)) return { allow: true };
    if (approve === undefined) {
      return {
        allow: false,
        reason: `'${request.permission}' tools are not allowed in this session`,
      };
    }
    return 'ask';
  };
  return {
    async check(request: PermissionRequest): Promise<PermissionDecision> {
      const answer = preview(request);
      if (answer !== 'ask') return answer;
      return (await approve?.(request))
        ? { allow: true }
        : { allow: false, reason: 'not approved' };
    },
    preview,
  };
}
