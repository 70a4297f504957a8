/**
 * A table of records (Mantine `Table`): a caption for screen readers, column headers, horizontal
 * scrolling on narrow screens, and an empty-state row.
 */
import { Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** One column: its header and how a record fills its cell. */
export interface Column<Row> {
  header: string;
  cell(row: Row): ReactNode;
  /** Keep the cell on one line (short values: badges, prefixes, buttons). */
  nowrap?: boolean;
}

export interface DataTableProps<Row> {
  caption: string;
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  rowKey(row: Row): string;
  empty: string;
  minWidth?: number;
  /**
   * For a table without controls in its cells: its scrolling area (sideways on a narrow screen) is
   * a focusable region named by the caption, so a keyboard can reach and scroll it (WCAG 2.1.1).
   */
  focusableScroll?: boolean;
}

export function DataTable<Row>({ caption, columns, rows, rowKey, empty, minWidth = 900, focusableScroll = false }: DataTableProps<Row>) {
  const scrollAreaProps = focusableScroll ? { viewportProps: { tabIndex: 0, role: 'region', 'aria-label': caption } } : undefined;
  return (
    <Table.ScrollContainer minWidth={minWidth} {...(scrollAreaProps === undefined ? {} : { scrollAreaProps })}>
      <Table striped highlightOnHover verticalSpacing="xs">
        <caption className="visually-hidden">{caption}</caption>
        <Table.Thead>
          <Table.Tr>
            {columns.map((column) => (
              <Table.Th key={column.header} scope="col">
                {column.header}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.length === 0 ? (
            <Table.Tr>
              <Table.Td colSpan={columns.length}>
                <Text c="dimmed" size="sm">
                  {empty}
                </Text>
              </Table.Td>
            </Table.Tr>
          ) : (
            rows.map((row) => (
              <Table.Tr key={rowKey(row)} data-row={rowKey(row)}>
                {columns.map((column) => (
                  <Table.Td key={column.header} style={column.nowrap === true ? { whiteSpace: 'nowrap' } : undefined}>
                    {column.cell(row)}
                  </Table.Td>
                ))}
              </Table.Tr>
            ))
          )}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
