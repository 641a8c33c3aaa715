/** A timestamp as the API writes it: ISO 8601 in UTC, or null when not known. */
export const isoOrNull = (value: Date | null | undefined): string | null =>
  value?.toISOString() ?? null;
