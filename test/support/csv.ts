/** RFC 4180 read strictly: CRLF records, quoted fields with doubled quotes; anything else throws. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"' && text[i + 1] === '"') ((field += '"'), (i += 2));
        else if (text[i] === '"') break;
        else field += text[i++];
      }
      i++;
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r') {
        if (text[i] === '"' || text[i] === '\n') throw new Error(`bare ${JSON.stringify(text[i])} at ${i}`);
        field += text[i++];
      }
    }
    record.push(field);
    if (text[i] === ',') i++;
    else if (text.startsWith('\r\n', i)) (records.push(record), (record = []), (i += 2));
    else throw new Error(`unexpected ${JSON.stringify(text[i])} at ${i}`);
  }
  return records;
}
