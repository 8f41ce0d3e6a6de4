// SVG charts for docs/bench, rendered in Node by echarts' server-side SVG renderer: no
// browser, no native canvas, deterministic output for the same figures (animation off),
// so a regenerated chart differs from the committed one only where the numbers do.

import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import * as echarts from 'echarts';
import type { EChartsOption } from 'echarts';

const palette = ['#2f6db5', '#e08a1e', '#4c9a52', '#b5412f', '#7a5bb5'];
const font = { fontFamily: 'Helvetica, Arial, sans-serif' };

function render(option: EChartsOption, width: number, height: number): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({
      animation: false,
      backgroundColor: '#ffffff',
      color: palette,
      textStyle: font,
      ...option,
    });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

export function writeSvg(path: string, svg: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, svg.endsWith('\n') ? svg : `${svg}\n`);
}

export interface BarSeries {
  readonly name: string;
  /** One value per category; null where the series was not run. */
  readonly values: readonly (number | null)[];
}

export interface HorizontalBarsSpec {
  readonly title: string;
  readonly subtitle: string;
  /** Top to bottom. */
  readonly categories: readonly string[];
  readonly series: readonly BarSeries[];
  readonly axisName: string;
  /** Log scale for the value axis (ratios and latencies span orders of magnitude). */
  readonly log: boolean;
  /** A vertical reference line, e.g. 1× = the floor. */
  readonly referenceAt?: { readonly value: number; readonly label: string };
  /** How values are printed at the end of each bar. */
  readonly valueLabel: (v: number) => string;
}

/** Grouped horizontal bars: one row per category, one bar per series. */
export function horizontalBarsSvg(spec: HorizontalBarsSpec): string {
  const rows = spec.categories.length;
  const height = Math.max(280, 150 + rows * (18 * Math.max(1, spec.series.length) + 14));
  // A row no series has a value for says so, instead of silently showing no bar.
  const named = spec.categories.map((c, i) =>
    spec.series.every((s) => s.values[i] === null || s.values[i] === undefined)
      ? `${c} — not run`
      : c,
  );
  // echarts draws category axes bottom-up; reverse so the first category is on top.
  const categories = named.reverse();
  const series = spec.series.map((s, index) => ({
    name: s.name,
    type: 'bar' as const,
    barGap: '10%',
    data: [...s.values]
      .reverse()
      .map((v) => (v === null || !Number.isFinite(v) || (spec.log && v <= 0) ? null : v)),
    label: {
      show: true,
      position: 'right' as const,
      fontSize: 10,
      formatter: (p: { value?: unknown }): string =>
        typeof p.value === 'number' ? spec.valueLabel(p.value) : '',
    },
    ...(index === 0 && spec.referenceAt !== undefined
      ? {
          markLine: {
            silent: true,
            symbol: 'none',
            lineStyle: { color: '#555', type: 'dashed' as const },
            label: { formatter: spec.referenceAt.label, position: 'start' as const },
            data: [{ xAxis: spec.referenceAt.value }],
          },
        }
      : {}),
  }));
  return render(
    {
      title: {
        text: spec.title,
        subtext: spec.subtitle,
        left: 'center',
        textStyle: { fontSize: 15 },
        subtextStyle: { fontSize: 11 },
      },
      legend: { top: 62, itemGap: 28, data: spec.series.map((s) => s.name) },
      grid: { left: 290, right: 70, top: 100, bottom: 44 },
      xAxis: {
        type: spec.log ? 'log' : 'value',
        name: spec.axisName,
        nameLocation: 'middle',
        nameGap: 26,
        ...(spec.log ? { logBase: 10 } : {}),
      },
      yAxis: { type: 'category', data: categories, axisLabel: { fontSize: 11 } },
      series,
    },
    900,
    height,
  );
}

export interface ScalingSpec {
  readonly title: string;
  readonly subtitle: string;
  /** x values (writers). */
  readonly xs: readonly number[];
  /** Aggregate throughput per x, one series per configuration. */
  readonly series: readonly BarSeries[];
  readonly rateName: string;
}

/** Bars for throughput, and on a second axis each series' scaling relative to its x = first. */
export function scalingSvg(spec: ScalingSpec): string {
  const bars = spec.series.map((s) => ({
    name: s.name,
    type: 'bar' as const,
    data: s.values.map((v) => v ?? null),
    label: {
      show: true,
      position: 'inside' as const,
      color: '#ffffff',
      fontSize: 11,
      formatter: (p: { value?: unknown }): string =>
        typeof p.value === 'number' ? Math.round(p.value).toLocaleString('en-US') : '',
    },
  }));
  const lines = spec.series.map((s) => {
    const base = s.values[0];
    return {
      name: `${s.name} — scaling`,
      type: 'line' as const,
      yAxisIndex: 1,
      symbolSize: 7,
      data: s.values.map((v) =>
        v === null || base === null || base === undefined || base <= 0 ? null : v / base,
      ),
    };
  });
  return render(
    {
      title: {
        text: spec.title,
        subtext: spec.subtitle,
        left: 'center',
        textStyle: { fontSize: 15 },
        subtextStyle: { fontSize: 11 },
      },
      legend: { top: 62, itemGap: 28 },
      grid: { left: 80, right: 70, top: 100, bottom: 50 },
      xAxis: {
        type: 'category',
        name: 'writer processes',
        nameLocation: 'middle',
        nameGap: 28,
        data: spec.xs.map(String),
      },
      yAxis: [
        { type: 'value', name: spec.rateName, nameLocation: 'middle', nameGap: 60 },
        {
          type: 'value',
          name: '× one writer',
          nameLocation: 'middle',
          nameGap: 40,
          min: 0,
          splitLine: { show: false },
        },
      ],
      series: [...bars, ...lines],
    },
    900,
    480,
  );
}
