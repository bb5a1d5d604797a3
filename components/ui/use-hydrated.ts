"use client";

import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * False in the server's HTML and until React has hydrated, then true. Forms that handle secrets in JavaScript keep
 * their submit buttons disabled until then, so an early click never submits them natively (a GET would put the
 * secret in the address).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
