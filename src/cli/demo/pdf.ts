/**
 * A tiny valid PDF written as text: one page with one line of Helvetica. Enough for the demo's "a
 * document the agent attaches", with a correct cross-reference table so PDF readers open it cleanly.
 *
 * @module
 */

/**
 * Builds a one-page PDF showing `text` (ASCII; other characters are replaced by `?`).
 *
 * @example
 * ```ts
 * await writeFile('report.pdf', minimalPdf('Crash report'));
 * ```
 */
export function minimalPdf(text: string): Uint8Array {
  // PDF string literal: only printable ASCII, with ( ) \ escaped.
  const safe = text.replace(/[^\x20-\x7e]/g, '?').replace(/[()\\]/g, (c) => `\\${c}`);
  const stream = `BT /F1 18 Tf 72 720 Td (${safe}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefAt = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  // Everything above is ASCII, so string length = byte length and the offsets are byte offsets.
  return new TextEncoder().encode(body);
}
