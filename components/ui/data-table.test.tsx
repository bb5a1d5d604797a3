import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { DataTable, type TableSpec } from "./data-table";

type Row = { id: string; n: number };

const spec: TableSpec<Row> = {
  minWidth: "min-w-[36rem]",
  rowKey: (r) => r.id,
  rowAttributes: (r) => ({ "data-row": r.id }),
  phone: "scroll",
  columns: [
    { header: "Name", rowHeader: "font-medium", cell: (r) => r.id },
    { header: "Count", align: "right", className: "tabular-nums", cell: (r) => r.n },
  ],
};

describe("DataTable", () => {
  it("keeps a gutter between columns but not after the last, and heads each row with its first cell", () => {
    const out = renderToStaticMarkup(<DataTable spec={spec} rows={[{ id: "a", n: 1 }]} caption="Things" testId="t" />);
    expect(out).toBe(
      [
        '<section aria-label="Things" tabindex="0" class="overflow-x-auto">',
        '<table class="w-full min-w-[36rem] border-collapse text-sm" data-testid="t">',
        '<caption class="sr-only">Things</caption>',
        '<thead><tr class="border-b border-slate-300 text-left">',
        '<th scope="col" class="py-2 pr-2">Name</th><th scope="col" class="py-2 text-right">Count</th></tr></thead>',
        '<tbody><tr class="border-b border-slate-100" data-row="a">',
        '<th scope="row" class="py-2 pr-2 text-left font-medium">a</th><td class="py-2 text-right tabular-nums">1</td>',
        "</tr></tbody></table></section>",
      ].join(""),
    );
  });

  it("pads every column, or none, as the spec asks", () => {
    const all = renderToStaticMarkup(
      <DataTable spec={{ ...spec, gutter: "all", pad: "py-1.5" }} rows={[]} caption="All" />,
    );
    expect(all).toContain('<th scope="col" class="py-1.5 pr-2 text-right">Count</th>');
    const none = renderToStaticMarkup(
      <DataTable spec={{ ...spec, gutter: "none" }} rows={[]} className="mt-2" caption="None" />,
    );
    expect(none).toContain('class="mt-2 overflow-x-auto"');
    expect(none).toContain('<th scope="col" class="py-2">Name</th>');
  });

  it("on phones shows a card a row, each cell labelled with its column's header", () => {
    const out = renderToStaticMarkup(
      <DataTable spec={{ ...spec, phone: undefined }} rows={[{ id: "a", n: 1 }]} caption="Cards" />,
    );
    expect(out).toContain('<table class="w-full min-w-[36rem] border-collapse text-sm max-sm:block max-sm:min-w-0">');
    expect(out).toContain('<thead class="max-sm:sr-only">');
    expect(out).toMatch(
      /<th scope="row" class="[^"]*max-sm:flex[^"]*" data-label="Name"><span class="[^"]*">a<\/span>/,
    );
    expect(out).toMatch(/<td class="[^"]*max-sm:before:content-\[attr\(data-label\)\][^"]*" data-label="Count">/);
  });
});
