export { type Broadcaster, createBroadcaster } from './broadcaster.ts';
export { textFrame } from './fanout.ts';
