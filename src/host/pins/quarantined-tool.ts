import type { ToolCatalogue } from '../catalogue/tool-catalogue.js';
import type { HostTool } from '../host-tool.js';
import type { ServerSlot } from '../slot/server-slot.js';

/**
 * The tool a quarantined tool's exposed name would be, or undefined: a call of it reaches the
 * pipeline, whose pin check refuses it (`TOOL_QUARANTINED`) rather than calling it unknown.
 */
export function quarantinedTool(
  slots: Iterable<ServerSlot>,
  catalogue: ToolCatalogue,
  name: string,
): HostTool | undefined {
  for (const slot of slots) {
    for (const held of slot.quarantined.values()) {
      if (catalogue.quarantinedName(slot.name, held.tool.name) !== name) continue;
      return {
        name,
        inputSchema: held.tool.inputSchema,
        server: slot.name,
        originalName: held.tool.name,
      };
    }
  }
  return undefined;
}
