#!/usr/bin/env node
// The entry of `pnpm --filter evals run-real`.
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
