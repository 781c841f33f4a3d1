/**
 * ACP content blocks that are not text (of a prompt, a message chunk or a tool call's content) into v2:
 * images and audio are uploaded, embedded resources are uploaded as files, links to local files of a
 * known size become `file` messages referring to the machine's file; anything else is a counted skip.
 *
 * @module
 */
import { typeName } from '../provider-json.js';
import type { Placement, SessionWriter } from '../session-writer.js';
import { type Step, uploadStep } from '../steps.js';
import type { ContentBlock } from './acp-events.js';

/** The last segment of a URI's path, decoded, as a display file name (or `undefined`). */
function fileNameOf(uri: string): string | undefined {
  let segment = uri
    .split(/[?#]/)[0]!
    .split('/')
    .filter((part) => part.length > 0)
    .at(-1);
  if (segment === undefined) return undefined;
  try {
    segment = decodeURIComponent(segment);
  } catch {
    // keep it encoded
  }
  const name = segment.replace(/[\u0000-\u001f\u007f-\u009f/\\]/g, '').slice(0, 255);
  return name.length === 0 || name === '.' || name === '..' ? undefined : name;
}

/** A `file://` URI's absolute path (percent-decoded), or `undefined` for any other URI. */
function localPath(uri: string): string | undefined {
  const match = /^file:\/\/(?:localhost)?(\/[^?#]*)$/i.exec(uri);
  if (!match) return undefined;
  try {
    const path = decodeURIComponent(match[1]!);
    return /^\/[A-Za-z]:[\\/]/.test(path) ? path.slice(1) : path;
  } catch {
    return undefined;
  }
}

/** Writes a non-text content block as media, a file reference, or a counted skip. */
export function writeContentBlock(
  writer: SessionWriter,
  block: ContentBlock,
  role: 'user' | 'agent',
  place: Placement,
): Step {
  switch (block.type) {
    case 'image':
    case 'audio':
      if (typeof block.data === 'string' && block.data.length > 0) {
        return uploadStep(
          writer.media(
            block.data,
            {
              role,
              ...(block.mimeType ? { mimeType: block.mimeType } : {}),
              ...(block.type === 'audio' ? { noun: 'file' as const } : {}),
            },
            place,
          ),
        );
      }
      writer.skips.skip('unsupported-content', `an ${block.type} by URI only`);
      return;
    case 'resource': {
      const upload = writeResource(writer, block, role, place);
      if (upload !== undefined) return upload;
      break;
    }
    case 'resource_link':
      writeResourceLink(writer, block, role, place);
      return;
    default:
      writer.skips.skip('unsupported-content', `content block ${typeName(block.type)}`);
      return;
  }
  writer.skips.skip('malformed-event', `content block ${typeName(block.type)}`);
}

/** An embedded resource (text or base64 blob), uploaded as a file; `undefined` when it holds neither. */
function writeResource(
  writer: SessionWriter,
  block: ContentBlock,
  role: 'user' | 'agent',
  place: Placement,
): Promise<void> | undefined {
  const resource = block.resource;
  if (resource === undefined) return undefined;
  const name = fileNameOf(resource.uri);
  const data =
    typeof resource.blob === 'string'
      ? resource.blob
      : typeof resource.text === 'string'
        ? new TextEncoder().encode(resource.text)
        : undefined;
  if (data === undefined) return undefined;
  const mimeType = resource.mimeType ?? (typeof resource.text === 'string' ? 'text/plain' : undefined);
  return uploadStep(
    writer.media(
      data,
      { role, noun: 'file', ...(mimeType ? { mimeType } : {}), ...(name ? { name } : {}) },
      place,
    ),
  );
}

/** A link to a local file of known size: a `file` message naming the machine's file; nothing is uploaded. */
function writeResourceLink(
  writer: SessionWriter,
  block: ContentBlock,
  role: 'user' | 'agent',
  place: Placement,
): void {
  const path = typeof block.uri === 'string' ? localPath(block.uri) : undefined;
  const name = block.name ?? (typeof block.uri === 'string' ? fileNameOf(block.uri) : undefined);
  const size = block.size;
  if (
    path !== undefined &&
    name !== undefined &&
    typeof size === 'number' &&
    Number.isSafeInteger(size) &&
    size >= 0
  ) {
    const message = writer.mediaMessage(
      role,
      {
        type: 'file',
        ref: `machine-file://${path}`,
        name: fileNameOf(name) ?? name,
        size,
        mimeType: block.mimeType ?? 'application/octet-stream',
      },
      place,
    );
    if (message !== undefined) return;
  }
  writer.skips.skip('unsupported-content', 'a resource link that is not a local file of known size');
}
