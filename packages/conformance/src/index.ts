export * from './session-store/index.js';
