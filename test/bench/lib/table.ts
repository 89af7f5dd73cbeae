/** Plain-text tables for the benchmarks' output. */

export interface Column {
  readonly header: string;
  /** Left by default. */
  readonly align?: "left" | "right";
  /** The column is at least this wide (header and cells may widen it). */
  readonly minWidth?: number;
}

export interface TableOptions {
  /** Between columns; two spaces by default. */
  readonly gap?: string;
  /** Trailing blanks removed from every line (short last cells, empty columns). */
  readonly trimEnd?: boolean;
  /** A rule under the header: "line" = dashes as long as the header line, "columns" = dashes per column. */
  readonly rule?: "none" | "line" | "columns";
}

type Cell = string | number;

/** The table as lines joined with "\n": header, optional rule, one line per row. */
export function formatTable(columns: readonly (Column | string)[], rows: readonly (readonly Cell[])[], options: TableOptions = {}): string {
  const cols: Column[] = columns.map((c) => (typeof c === "string" ? { header: c } : c));
  const gap = options.gap ?? "  ";
  const widths = cols.map((c, i) => Math.max(c.minWidth ?? 0, c.header.length, ...rows.map((r) => String(r[i] ?? "").length)));
  const line = (cells: readonly Cell[]) => {
    const text = cols.map((c, i) => (c.align === "right" ? String(cells[i] ?? "").padStart(widths[i]!) : String(cells[i] ?? "").padEnd(widths[i]!))).join(gap);
    return options.trimEnd ? text.trimEnd() : text;
  };
  const head = line(cols.map((c) => c.header));
  const rule = options.rule === "line" ? ["-".repeat(head.length)] : options.rule === "columns" ? [widths.map((w) => "-".repeat(w)).join(gap)] : [];
  return [head, ...rule, ...rows.map(line)].join("\n");
}
