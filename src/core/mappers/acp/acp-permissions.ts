/**
 * ACP's permission options in v2's terms: option ids kept, ACP's kinds (`allow_once`, …) as v2's.
 *
 * @module
 */

import { isId } from '../../protocol/fields.js';
import type { PermissionOption, PermissionOptionKind } from '../../protocol/index.js';
import { readPermissionOption } from './acp-events.js';

const PERMISSION_KINDS: Record<string, PermissionOptionKind> = {
  allow_once: 'allow-once',
  allow_always: 'allow-always',
  reject_once: 'reject-once',
  reject_always: 'reject-always',
};

/** ACP's option kinds (`allow_once`, …) as v2's; a kind from a newer ACP keeps its allow/reject sense. */
function permissionKind(kind: string): PermissionOptionKind | undefined {
  const known = PERMISSION_KINDS[kind] ?? PERMISSION_KINDS[kind.replace(/-/g, '_')];
  if (known) return known;
  if (kind.startsWith('allow')) return 'allow-once';
  if (kind.startsWith('reject') || kind.startsWith('deny')) return 'reject-once';
  return undefined;
}

/** ACP permission options as v2's: option ids kept; options v2 cannot carry are left out. */
export function permissionOptions(options: readonly unknown[]): PermissionOption[] {
  const mapped: PermissionOption[] = [];
  const seen = new Set<string>();
  for (const raw of options) {
    const option = readPermissionOption(raw);
    if (option === undefined) continue;
    const kind = permissionKind(option.kind);
    const id = option.optionId;
    if (kind === undefined || seen.has(id) || !isId(id)) continue;
    seen.add(id);
    mapped.push({ id, label: option.name, kind });
  }
  return mapped;
}
