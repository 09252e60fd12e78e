import { csvField, csvRow } from './csv';

describe('csv', () => {
  it('quotes fields with commas, quotes and line breaks, and doubles quotes', () => {
    expect(csvRow(['plain', 'a,b', 'say "hi"', 'two\nlines', 'cr\rhere', null, 12, -4])).toBe(
      'plain,"a,b","say ""hi""","two\nlines","cr\rhere",,12,-4\r\n',
    );
  });

  it('defuses text a spreadsheet would run as a formula, but not numbers', () => {
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('-2')).toBe("'-2");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField(-2)).toBe('-2');
    expect(csvField('')).toBe('');
  });
});
