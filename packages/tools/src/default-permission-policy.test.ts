import { ConfigError, type Permission, type PermissionRequest } from '@mh/core';
import { describe, expect, it } from 'vitest';
import { defaultPermissionPolicy } from './default-permission-policy.js';

function request(permission: Permission): PermissionRequest {
  return { toolName: 'tool', permission, input: {}, callId: 'c1' };
}

describe('defaultPermissionPolicy', () => {
  it('allows read without any grant', async () => {
    expect(await defaultPermissionPolicy().check(request('read'))).toEqual({ allow: true });
  });

  it('denies write without a grant and says how to grant it', async () => {
    expect(await defaultPermissionPolicy().check(request('write'))).toEqual({
      allow: false,
      reason: "'write' tools are not allowed in this session",
    });
  });

  it('allows a granted permission', async () => {
    const policy = defaultPermissionPolicy({ grants: ['exec'] });
    expect(await policy.check(request('exec'))).toEqual({ allow: true });
  });

  it('does not let a write grant cover exec', async () => {
    const policy = defaultPermissionPolicy({ grants: ['write'] });
    expect((await policy.check(request('exec'))).allow).toBe(false);
  });

  it('asks the approval callback about an ungranted call and follows a yes', async () => {
    const asked: PermissionRequest[] = [];
    const policy = defaultPermissionPolicy({
      approve: (pending) => {
        asked.push(pending);
        return true;
      },
    });
    expect(await policy.check(request('write'))).toEqual({ allow: true });
    expect(asked).toEqual([request('write')]);
  });

  it('denies when the approval callback resolves to no', async () => {
    const policy = defaultPermissionPolicy({ approve: async () => false });
    expect(await policy.check(request('exec'))).toEqual({ allow: false, reason: 'not approved' });
  });

  it('does not ask the approval callback about read calls', async () => {
    let asked = 0;
    const policy = defaultPermissionPolicy({ approve: () => ++asked > 0 });
    await policy.check(request('read'));
    expect(asked).toBe(0);
  });

  it('rejects an unknown grant with ConfigError naming grants', () => {
    let error: unknown;
    try {
      defaultPermissionPolicy({ grants: ['root' as Permission] });
    } catch (caught) {
      error = caught;
    }
    expect(ConfigError.isInstance(error) && error.field).toBe('grants');
  });
});

describe('defaultPermissionPolicy.preview', () => {
  it('allows a granted permission, read always', async () => {
    const policy = defaultPermissionPolicy({ grants: ['write'] });
    expect(await policy.preview?.(request('read'))).toEqual({ allow: true });
    expect(await policy.preview?.(request('write'))).toEqual({ allow: true });
  });

  it('denies an ungranted permission with the reason check gives when nobody can approve', async () => {
    const policy = defaultPermissionPolicy({ grants: ['write'] });
    expect(await policy.preview?.(request('exec'))).toEqual(await policy.check(request('exec')));
    expect(await policy.preview?.(request('exec'))).toMatchObject({ allow: false });
  });

  it('answers ask for an ungranted permission when approve is set, and never calls it', async () => {
    let asked = 0;
    const policy = defaultPermissionPolicy({ approve: () => ++asked > 0 });
    expect(await policy.preview?.(request('exec'))).toBe('ask');
    expect(asked).toBe(0);
  });

  it('rejects a misspelt option with ConfigError naming it', () => {
    let error: unknown;
    try {
      defaultPermissionPolicy({ grant: ['write'] } as never);
    } catch (caught) {
      error = caught;
    }
    expect(ConfigError.isInstance(error) && error.field).toBe('grant');
  });
});
