/**
 * A filter condition matching a field only while it still holds `value` as read, missing included:
 * what turns a read-then-write repair into a write that cannot overwrite a change made in between.
 */
export function stillHolds(value: unknown): { $exists: false } | { $eq: unknown } {
  return value === undefined ? { $exists: false } : { $eq: value };
}
