import { renderSimulatedQrSvg } from './simulator-qr.svg';

describe('renderSimulatedQrSvg', () => {
  it('renders the same picture for the same code and a different one for another code', () => {
    const a = renderSimulatedQrSvg('AbC123', ['Simulated QR code']);
    expect(renderSimulatedQrSvg('AbC123', ['Simulated QR code'])).toBe(a);
    expect(renderSimulatedQrSvg('XyZ789', ['Simulated QR code'])).not.toBe(a);
  });

  it('is an SVG document with the three finder squares and the caption', () => {
    const svg = renderSimulatedQrSvg('AbC123', ['Simulated QR code', 'contact way · state spring_1']);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.endsWith('</svg>')).toBe(true);
    // Top-left, top-right and bottom-left finder corners are dark modules (quiet zone of 2 modules of 8 px).
    expect(svg).toContain('<rect x="16" y="16" width="8" height="8"/>');
    expect(svg).toContain(`<rect x="${(2 + 24) * 8}" y="16" width="8" height="8"/>`);
    expect(svg).toContain(`<rect x="16" y="${(2 + 24) * 8}" width="8" height="8"/>`);
    expect(svg).toContain('>contact way · state spring_1</text>');
  });

  it('escapes caption text and keeps at most three short lines', () => {
    const svg = renderSimulatedQrSvg('c', ['<script>&"', 'b', 'c', 'dropped', 'x'.repeat(80)]);
    expect(svg).toContain('&lt;script&gt;&amp;&quot;');
    expect(svg).not.toContain('<script>');
    expect(svg).not.toContain('dropped');
    expect(svg.match(/<text /g)).toHaveLength(3);
  });
});
