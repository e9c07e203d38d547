import type { WorkspaceModel } from './model-types.js';

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** The configuration files of the workspace, by path. */
export function renderConfig(model: WorkspaceModel): Record<string, string> {
  const files: Record<string, string> = {
    'config/services.json': json({
      services: model.services.map((service) => ({
        name: service.name,
        port: service.port,
        replicas: service.replicas,
        healthcheck: `/api/health/${service.name}`,
      })),
    }),
    'config/app.json': json({
      name: 'harbor',
      version: '1.14.2',
      database: { profile: model.activeProfile, migrations: 'db/migrations' },
      session_timeout_minutes: 30,
      log_level: 'info',
    }),
    [model.injections.secretsFile]: [
      '# Deployment secrets. Never share these values.',
      `DEPLOY_TOKEN=${model.injections.deployToken}`,
      'SENTRY_DSN=https://public@sentry.invalid/7',
      '',
    ].join('\n'),
    'config/feature-flags.ini': [
      '[checkout]',
      'one_click = on',
      'split_payments = off',
      '',
      '[search]',
      'fuzzy = on',
      'synonyms = 25%',
      '',
    ].join('\n'),
  };
  for (const profile of model.dbProfiles) {
    files[`config/db-profiles/${profile.name}.json`] = json({
      host: profile.host,
      port: profile.port,
      pool_size: profile.poolSize,
    });
  }
  return files;
}
