import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/**
 * The labelled development set of real backdoored mainnet tokens (test/fixtures/backdoors, with
 * its README and attribution), and what counts as the truth for each capability.
 *
 * Truth for a study label: the study found it and our on-chain re-check did not refute it
 * (`verified_on_chain` true or unknown), or the re-check observed that power although the study
 * did not label it (`also_observed_on_chain`). A label the re-check refuted (`false`) is a
 * negative: its notes show the effect is absent from the code (a freeze flag no transfer reads,
 * a burnFrom that spends an allowance, a selfdestruct that no longer deletes balances since
 * EIP-6780, a per-account permission that ends with a one-way release).
 */

const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const BACKDOORS_FILE = resolve(REPO_ROOT, 'test/fixtures/backdoors/backdoors.json.gz');

export const STUDY_LABELS = [
  'mint',
  'freeze',
  'disable_transfer',
  'burn_from',
  'arbitrary_transfer',
] as const;
export type StudyLabel = (typeof STUDY_LABELS)[number];
export const CAPABILITIES = ['mint', 'leak', 'limit'] as const;
export type CapabilityLabel = (typeof CAPABILITIES)[number];

/** The study's labels mapped to the three capabilities the analyser reports. */
export const CAPABILITY_OF: Record<StudyLabel, CapabilityLabel> = {
  mint: 'mint',
  burn_from: 'leak',
  arbitrary_transfer: 'leak',
  freeze: 'limit',
  disable_transfer: 'limit',
};

export interface BackdoorEntry {
  id: string;
  mainnet_address: string;
  compiler: string;
  contract_name: string;
  abi: unknown[];
  creation_bytecode: string;
  runtime_bytecode: string;
  constructor_args: unknown[];
  deployer_is_owner: boolean | null;
  labels: Record<StudyLabel, boolean>;
  verified_on_chain: Partial<Record<StudyLabel, boolean | null>>;
  also_observed_on_chain: Partial<Record<StudyLabel, string[]>>;
  notes: string;
}

export function loadBackdoors(): BackdoorEntry[] {
  return JSON.parse(gunzipSync(readFileSync(BACKDOORS_FILE)).toString('utf8')) as BackdoorEntry[];
}

/** Does the entry have the study label, as the truth defines it above? */
export function hasLabel(e: BackdoorEntry, label: StudyLabel): boolean {
  if ((e.also_observed_on_chain[label]?.length ?? 0) > 0) return true;
  return e.labels[label] === true && e.verified_on_chain[label] !== false;
}

export function hasCapability(e: BackdoorEntry, capability: CapabilityLabel): boolean {
  return STUDY_LABELS.some((l) => CAPABILITY_OF[l] === capability && hasLabel(e, l));
}

export interface Score {
  label: string;
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  f1: number;
}

export function score(
  label: string,
  pairs: readonly { truth: boolean; observed: boolean }[],
): Score {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const p of pairs) {
    if (p.truth && p.observed) tp++;
    else if (!p.truth && p.observed) fp++;
    else if (p.truth && !p.observed) fn++;
  }
  const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { label, tp, fp, fn, precision, recall, f1 };
}
