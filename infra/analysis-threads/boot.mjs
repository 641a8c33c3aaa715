// The analysis thread's entry: TypeScript loaded as the CLI loads it (bin/token-monitor.mjs), since
// a worker thread does not inherit the loader hooks of the thread that started it.
import { register } from 'tsx/esm/api';

register();
await import('./thread.ts');
