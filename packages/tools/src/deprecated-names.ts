// Names renamed in the "one name per concept" change, kept for one minor version so that code
// written against the old names still compiles (with a deprecation mark in editors).
import { FencingExecutor, type FencingExecutorOptions } from './fencing-executor.js';
import { PolicyToolExecutor, type PolicyToolExecutorOptions } from './policy-tool-executor.js';

/**
 * @deprecated Use `PolicyToolExecutor` (`ToolExecutor` is the port of `@mh/core` it implements);
 * this name goes away in the next minor version.
 */
export const ToolExecutor: typeof PolicyToolExecutor = PolicyToolExecutor;
/** @deprecated Use `PolicyToolExecutor`; this name goes away in the next minor version. */
export type ToolExecutor = PolicyToolExecutor;
/** @deprecated Use `PolicyToolExecutorOptions`; this name goes away in the next minor version. */
export type ToolExecutorOptions = PolicyToolExecutorOptions;

/** @deprecated Use `FencingExecutor`; this name goes away in the next minor version. */
export const SpotlightingExecutor: typeof FencingExecutor = FencingExecutor;
/** @deprecated Use `FencingExecutor`; this name goes away in the next minor version. */
export type SpotlightingExecutor = FencingExecutor;
/** @deprecated Use `FencingExecutorOptions`; this name goes away in the next minor version. */
export type SpotlightingExecutorOptions = FencingExecutorOptions;
