// Types of capacity-plan.mjs, for the TypeScript test that covers it (test/bench/capacity-plan.test.ts).

export declare function backendName(i: number): string;
export declare function viewName(i: number): string;

/** One step of a stepping-up measurement: backends or sessions, and the p99 latency there (µs). */
export interface P99Step {
  at: number;
  p99Us: number;
}

export interface P99Crossing {
  baselineUs: number;
  limitUs: number;
  at: number | undefined;
  upTo: number;
}

export declare function p99Crossing(steps: readonly P99Step[], factor?: number): P99Crossing;
export declare function describeCrossing(crossing: P99Crossing, unit: string): string;
