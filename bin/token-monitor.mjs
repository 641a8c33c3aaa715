#!/usr/bin/env node
// Runs the TypeScript CLI directly: no build step after `npm ci`.
import { register } from 'tsx/esm/api';

register();
await import('../app/cli.ts');
