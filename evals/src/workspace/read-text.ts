/** The rows of a CSV text (simple quoting), header first. */
export function csvRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\[lines \d+-\d+ of /.test(line))
    .map((line) => {
      const cells: string[] = [];
      let cell = '';
      let quoted = false;
      for (let index = 0; index < line.length; index++) {
        const char = line[index];
        if (quoted && char === '"' && line[index + 1] === '"') {
          cell += '"';
          index++;
        } else if (char === '"') quoted = !quoted;
        else if (char === ',' && !quoted) {
          cells.push(cell);
          cell = '';
        } else cell += char;
      }
      cells.push(cell);
      return cells;
    });
}

/** CSV text as objects keyed by the header. */
export function csvRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = csvRows(text);
  if (!header) return [];
  return rows.map((row) => Object.fromEntries(header.map((key, index) => [key, row[index] ?? ''])));
}

/** The rows of a markdown table (`| a | b |`), header and separator excluded. */
export function markdownRows(text: string): string[][] {
  const rows = text
    .split('\n')
    .filter((line) => line.trim().startsWith('|'))
    .map((line) =>
      line
        .trim()
        .replace(/^\||\|$/g, '')
        .split('|')
        .map((cell) => cell.trim()),
    );
  return rows.slice(1).filter((row) => !row.every((cell) => /^-+$/.test(cell)));
}
