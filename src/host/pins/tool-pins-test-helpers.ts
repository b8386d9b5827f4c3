/** Shared by the tool-pins tests: two tools, a variant maker, and a ToolPins on a memory store. */
import type { Tool } from '../../protocol/types.js';
import { MemoryStateStore } from '../../state/state-store.js';
import { ToolPins } from './tool-pins.js';
import { type PinEvent, type PinReview } from './pin-types.js';

export const ID = 'weather:0123456789abcdef';

/** The stored record, as far as these tests look into it. */
export interface StoredPinsShape {
  version: number;
  tools: Record<string, { pin?: string; definition?: unknown }>;
}

export const forecast: Tool = {
  name: 'forecast',
  title: 'Forecast',
  description: 'Weather forecast for a region',
  inputSchema: {
    type: 'object',
    properties: { region: { type: 'string', enum: ['eu', 'us'] }, days: { type: 'integer' } },
    required: ['region'],
  },
  outputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  annotations: { readOnlyHint: true },
  _meta: { 'example.com/listedAt': '2026-11-22T04:00:00Z' },
};

export const alerts: Tool = {
  name: 'alerts',
  description: 'Active weather alerts',
  inputSchema: { type: 'object', properties: { region: { type: 'string' } } },
};

export function variant(tool: Tool, mutate: (copy: Tool) => void): Tool {
  const copy = structuredClone(tool);
  mutate(copy);
  return copy;
}

export function names(review: PinReview): { allowed: string[]; quarantined: string[] } {
  return {
    allowed: review.allowed.map((tool) => tool.name),
    quarantined: review.quarantined.map(({ tool }) => tool.name),
  };
}

/** A ToolPins on a memory store, recording its events. */
export function setup(options: Partial<ConstructorParameters<typeof ToolPins>[0]> = {}) {
  const store = options.store ?? new MemoryStateStore();
  const pins = new ToolPins({ ...options, store });
  const events: PinEvent[] = [];
  pins.onEvent((event) => events.push(event));
  return { store, pins, events };
}
