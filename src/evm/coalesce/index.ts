/**
 * Fewer JSON-RPC calls for the same reads: eth_calls and slot reads folded into one eth_call by
 * state override (coalesce.ts), the CallBundle's coding (bundle-codec.ts) and the window that
 * reads a contract's slots beside calls to it (slot-window.ts).
 */
export {
  COALESCED_GAS,
  type CoalescingOptions,
  coalescingOf,
  createCoalescingRpc,
  withCode,
} from './coalesce.ts';
