import type { ComponentChildren } from 'preact';
import { useState } from 'react';
import { Link } from 'wouter';
import { ApiError, UNREACHABLE, type RiskLevel } from './api.ts';
import type { LiveStatus } from './live.ts';

/** Small shared pieces: badges, verdicts, and the empty / broken / locked states of every page. */

export function RiskBadge(props: { score?: number | null; level?: RiskLevel | string | null; hidden?: boolean }) {
  if (props.hidden) return <span class="badge badge-locked" title="BASIC shows the risk score">score: BASIC</span>;
  if (props.score === null || props.score === undefined) {
    return <span class="badge badge-pending">{props.level ?? 'analysing'}</span>;
  }
  const level = props.level ?? 'unknown';
  return <span class={`badge badge-${level}`} aria-label={`Risk ${props.score} of 100, ${level}`}>{props.score} · {level}</span>;
}

/** The honeypot verdict in words: the simulated sell is the evidence. */
export function Verdict(props: { isHoneypot?: boolean | null; level?: string | null; sellable?: boolean | null }) {
  const honeypot = props.isHoneypot ?? (props.level === 'honeypot' ? true : null);
  if (honeypot === true) return <span class="verdict verdict-bad">Honeypot: cannot sell</span>;
  if (props.sellable === true) return <span class="verdict verdict-ok">Sellable</span>;
  if (props.sellable === false) return <span class="verdict verdict-bad">Sell fails</span>;
  return <span class="verdict verdict-unknown">Not simulated yet</span>;
}

export function Loading(props: { what: string }) {
  return <p class="state" role="status" aria-live="polite">Loading {props.what}…</p>;
}

export function Empty(props: { children: ComponentChildren }) {
  return <div class="state state-empty">{props.children}</div>;
}

/** A failed request in plain words, with a retry; never a raw error. */
export function Failure(props: { error: unknown; what: string; retry?: () => void }) {
  const error = props.error;
  let message = `Could not load ${props.what}.`;
  if (error instanceof ApiError) {
    if (error.status === UNREACHABLE) message = `The service cannot be reached, so ${props.what} cannot be shown right now. It will retry on its own.`;
    else if (error.status === 404) message = `Not found: there is no such ${props.what}.`;
    else if (error.status === 429) message = `Too many requests. Please wait a moment.`;
    else if (error.status >= 500) message = `The service had a problem loading ${props.what} (${error.status}). Please try again shortly.`;
    else message = error.message;
  }
  return (
    <div class="state state-error" role="alert">
      <p>{message}</p>
      {props.retry && <button type="button" onClick={props.retry}>Try again</button>}
    </div>
  );
}

/** What a plan unlocks, where a locked feature would be. */
export function Locked(props: { feature: string; plan: 'BASIC' | 'PRO' }) {
  return (
    <div class="state state-locked">
      <p><strong>{props.feature}</strong> comes with the {props.plan} plan{props.plan === 'BASIC' ? ' (and PRO)' : ''}.</p>
      <p><Link href="/settings">See your plan in Settings</Link></p>
    </div>
  );
}

export function LiveIndicator(props: { status: LiveStatus }) {
  const s = props.status;
  if (s.mode === 'live') return <p class="live live-on" role="status"><span class="dot" aria-hidden="true" /> Live</p>;
  if (s.mode === 'connecting') return <p class="live" role="status">Connecting live updates…</p>;
  if (s.mode === 'polling') return <p class="live live-polling" role="status"><span class="dot" aria-hidden="true" /> Polling: {s.reason}</p>;
  return null;
}

export function CopyButton(props: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      // Clipboard refused (insecure origin): select the text instead so Ctrl-C works.
      window.prompt('Copy:', props.value);
    }
  };
  return (
    <button type="button" class="small" onClick={copy} aria-label={`Copy ${props.label}`}>
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

export function Flag(props: { value: boolean | null | undefined; good: 'true' | 'false' }) {
  if (props.value === null || props.value === undefined) return <span class="flag flag-unknown">unknown</span>;
  const ok = String(props.value) === props.good;
  return <span class={`flag ${ok ? 'flag-ok' : 'flag-bad'}`}>{props.value ? 'yes' : 'no'}</span>;
}
