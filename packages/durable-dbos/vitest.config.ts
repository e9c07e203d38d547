export { sharedConfig as default } from '../../vitest.shared.ts';
