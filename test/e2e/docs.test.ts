import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('docs/testing-with-the-mock.md', () => {
  it('embeds examples/mock-in-tests.test.ts exactly, so the documented example is the tested one', () => {
    const doc = read('docs/testing-with-the-mock.md');
    const example = read('examples/mock-in-tests.test.ts');
    expect(doc).toContain(`\`\`\`ts\n${example}\`\`\``);
  });
});
