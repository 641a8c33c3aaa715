/** Events (docs/websocket.md): appended by workers to a Redis stream, fanned out by every API instance. */

export interface TokenSummary {
  contract_address: string;
  chain_id: number;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  total_supply: string | null;
  creator: string | null;
  creation_tx_hash: string | null;
  creation_block_number: number | null;
  detection_source: string;
  detected_at: string;
}

export type ServiceEvent =
  | { type: 'token.created'; data: TokenSummary }
  | { type: 'token.updated'; data: TokenSummary & Record<string, unknown> }
  | { type: 'token.removed'; data: { contract_address: string; chain_id: number; reason: string } }
  | { type: 'alert'; data: { contract_address: string; chain_id: number; kind: string; message: string } & Record<string, unknown> };

export type EventType = ServiceEvent['type'];

/** The message a WebSocket client receives. */
export interface EventMessage {
  id: string;
  type: EventType;
  ts: string;
  data: ServiceEvent['data'];
}

export const EVENT_TYPES: readonly EventType[] = ['token.created', 'token.updated', 'alert', 'token.removed'];

export function chainIdOf(event: Pick<EventMessage, 'data'>): number {
  return event.data.chain_id;
}
