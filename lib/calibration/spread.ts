import type { Spread } from "../protocol/calibration-schema";

/** A sample's size, mean and range; null for an empty one. */
export function spread(values: readonly number[]): Spread | null {
  if (values.length === 0) return null;
  return {
    n: values.length,
    mean: values.reduce((a, b) => a + b, 0) / values.length,
    min: Math.min(...values),
    max: Math.max(...values),
  };
}

/** Mean and max of |x − 1|: how far A/A figures stray from the 1 they should be. */
export function errorFromOne(values: readonly number[]): { mean: number; max: number; n: number } | null {
  if (values.length === 0) return null;
  const errors = values.map((v) => Math.abs(v - 1));
  return { mean: errors.reduce((a, b) => a + b, 0) / errors.length, max: Math.max(...errors), n: errors.length };
}
