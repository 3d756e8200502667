// Tables as cards on a phone: each cell is labelled with its column's name.
import { describe, expect, it } from 'vitest';
import { cellLabels, columnNames } from '../src/layout/table-cards.ts';

describe('table cards', () => {
  it('names each column, collapsing whitespace and repeating a spanning header', () => {
    expect(columnNames([{ text: ' Users,\n 24 h ', span: 1 }, { text: 'Change', span: 2 }, { text: '', span: 1 }])).toEqual(['Users, 24 h', 'Change', 'Change', '']);
  });

  it('labels each cell by the column it starts in', () => {
    const columns = ['Issue', 'Severity', 'Users', 'Last seen'];
    expect(cellLabels(columns, [{ span: 1 }, { span: 1 }, { span: 1 }, { span: 1 }])).toEqual(columns);
    expect(cellLabels(columns, [{ span: 2 }, { span: 1 }, { span: 1 }])).toEqual(['Issue', 'Users', 'Last seen']);
  });

  it('gives cells past the last column no label', () => {
    expect(cellLabels(['A'], [{ span: 1 }, { span: 1 }])).toEqual(['A', '']);
  });
});
