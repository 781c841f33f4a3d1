/**
 * What an EXIF block holds, read as exiftool reads it: the tags of IFD0, of the EXIF sub-IFD, of the GPS
 * IFD and of IFD1 (the embedded thumbnail's), by IFD. Test-only: it states what a stripped file still
 * says, independently of the code that strips it.
 */

/** Tag numbers by IFD name (`ifd0`, `exif`, `gps`, `ifd1`). */
export type ExifTags = Record<'ifd0' | 'exif' | 'gps' | 'ifd1', number[]>;

const EXIF_POINTER = 0x8769;
const GPS_POINTER = 0x8825;

/**
 * The tags of an EXIF block: a TIFF structure, or one after `Exif\0\0` (what sharp's `metadata().exif`
 * gives). Empty lists for an absent or unreadable block.
 */
export function exifTags(block: Uint8Array | undefined): ExifTags {
  const tags: ExifTags = { ifd0: [], exif: [], gps: [], ifd1: [] };
  if (block === undefined) return tags;
  const tiff = block[0] === 0x45 && block[1] === 0x78 ? block.subarray(6) : block;
  if (tiff.length < 8) return tags;
  const little = tiff[0] === 0x49;
  const view = new DataView(tiff.buffer, tiff.byteOffset, tiff.byteLength);
  const u16 = (at: number) => view.getUint16(at, little);
  const u32 = (at: number) => view.getUint32(at, little);
  const readIfd = (at: number, into: number[]): { next: number; pointers: Map<number, number> } => {
    const pointers = new Map<number, number>();
    if (at + 2 > tiff.length) return { next: 0, pointers };
    const count = u16(at);
    for (let i = 0; i < count && at + 2 + i * 12 + 12 <= tiff.length; i++) {
      const entry = at + 2 + i * 12;
      const tag = u16(entry);
      into.push(tag);
      if (tag === EXIF_POINTER || tag === GPS_POINTER) pointers.set(tag, u32(entry + 8));
    }
    const link = at + 2 + count * 12;
    return { next: link + 4 <= tiff.length ? u32(link) : 0, pointers };
  };
  const ifd0 = readIfd(u32(4), tags.ifd0);
  const exif = ifd0.pointers.get(EXIF_POINTER);
  if (exif) readIfd(exif, tags.exif);
  const gps = ifd0.pointers.get(GPS_POINTER);
  if (gps) readIfd(gps, tags.gps);
  if (ifd0.next) readIfd(ifd0.next, tags.ifd1);
  return tags;
}
