export {
  backoffDelay,
  createRpcClient,
  isImmutableRequest,
  type RpcClientOptions,
} from './client.ts';
export {
  createEndpointPool,
  type EndpointLease,
  type EndpointOutcome,
  type EndpointPool,
  type EndpointPoolOptions,
  type EndpointStats,
  type RpcPriority,
} from './endpoints.ts';
export { type HeadSubscription, subscribeNewHeads } from './heads.ts';
