/**
 * A bar chart of usage over time, drawn as plain SVG (no chart library: one series of bars and two
 * axes do not need 100 kB of code). It is an image to assistive technology (`role="img"`) named by
 * its `<title>` and summarised by its `<desc>` (range, total, busiest period); each bar carries its
 * own `<title>` for the pointer, and the same numbers are in the page's tables. Drawn in the
 * container's own pixel width, so its text keeps its size on a phone.
 */
import { Box } from '@mantine/core';
import { useElementSize, useId } from '@mantine/hooks';
import type { UsageReport } from '@svc/sdk';
import { formatBucket, formatCompact, formatCount, metricOf, niceCeiling, type UsageBucket, type UsageMetric } from './usage-series.js';

const HEIGHT = 240;
const MARGIN = { top: 12, right: 12, bottom: 28, left: 52 };
/** Width used before the container has been measured. */
const FALLBACK_WIDTH = 640;

export interface UsageChartProps {
  buckets: readonly UsageBucket[];
  interval: UsageReport['interval'];
  metric: UsageMetric;
}

/** "tokens" or "requests", for sentences. */
export function metricNoun(metric: UsageMetric): string {
  return metric === 'tokens' ? 'tokens' : 'requests';
}

/** The chart's summary in words: what it shows, the total and the busiest period. */
export function describeChart(buckets: readonly UsageBucket[], interval: UsageReport['interval'], metric: UsageMetric): string {
  const noun = metricNoun(metric);
  const first = buckets[0];
  const last = buckets[buckets.length - 1];
  if (first === undefined || last === undefined) return `No ${noun} in this range.`;
  const total = buckets.reduce((sum, bucket) => sum + metricOf(bucket, metric), 0);
  const range = `from ${formatBucket(first.start, interval)} to ${formatBucket(last.start, interval)}`;
  if (total === 0) return `No ${noun} ${range}.`;
  const busiest = buckets.reduce((best, bucket) => (metricOf(bucket, metric) > metricOf(best, metric) ? bucket : best));
  return `${formatCount(total)} ${noun} ${range}; the busiest ${interval} was ${formatBucket(busiest.start, interval)} with ${formatCount(metricOf(busiest, metric))}.`;
}

/** Which bars get a time label: the first, then evenly spaced ones, at most `room` of them. */
export function labelledIndexes(count: number, room: number): Set<number> {
  const every = Math.max(1, Math.ceil(count / room));
  const indexes = new Set<number>();
  for (let index = 0; index < count; index += every) indexes.add(index);
  return indexes;
}

export function UsageChart({ buckets, interval, metric }: UsageChartProps) {
  const { ref, width: measured } = useElementSize();
  const titleId = useId();
  const descId = useId();
  const width = Math.max(measured > 0 ? measured : FALLBACK_WIDTH, 200);
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const peak = niceCeiling(Math.max(0, ...buckets.map((bucket) => metricOf(bucket, metric))));
  const slot = buckets.length === 0 ? plotWidth : plotWidth / buckets.length;
  const barWidth = Math.max(1, slot * 0.8);
  const y = (value: number) => MARGIN.top + plotHeight - (value / peak) * plotHeight;
  const ticks = [0, peak / 2, peak];
  const labelled = labelledIndexes(buckets.length, Math.max(1, Math.floor(plotWidth / 120)));
  const title = `${metric === 'tokens' ? 'Tokens' : 'Requests'} per ${interval} (UTC)`;

  return (
    <Box ref={ref} w="100%">
      <svg role="img" aria-labelledby={titleId} aria-describedby={descId} width={width} height={HEIGHT} viewBox={`0 0 ${width} ${HEIGHT}`} data-testid="usage-chart" style={{ display: 'block' }}>
        <title id={titleId}>{title}</title>
        <desc id={descId}>{describeChart(buckets, interval, metric)}</desc>
        {ticks.map((tick) => (
          <g key={tick}>
            <line x1={MARGIN.left} x2={width - MARGIN.right} y1={y(tick)} y2={y(tick)} stroke="var(--mantine-color-gray-3)" />
            <text x={MARGIN.left - 6} y={y(tick)} textAnchor="end" dominantBaseline="middle" fontSize={12} fill="var(--mantine-color-gray-8)">
              {formatCompact(tick)}
            </text>
          </g>
        ))}
        {buckets.map((bucket, index) => {
          const value = metricOf(bucket, metric);
          const x = MARGIN.left + index * slot + (slot - barWidth) / 2;
          return (
            <g key={bucket.start}>
              {value > 0 && (
                <rect x={x} y={y(value)} width={barWidth} height={Math.max(1, MARGIN.top + plotHeight - y(value))} fill="var(--mantine-color-blue-7)" data-value={value}>
                  <title>{`${formatBucket(bucket.start, interval)}: ${formatCount(value)} ${metricNoun(metric)}`}</title>
                </rect>
              )}
              {labelled.has(index) && (
                <text x={x + barWidth / 2} y={HEIGHT - 8} textAnchor="middle" fontSize={12} fill="var(--mantine-color-gray-8)">
                  {formatBucket(bucket.start, interval).replace(' UTC', '')}
                </text>
              )}
            </g>
          );
        })}
        <line x1={MARGIN.left} x2={width - MARGIN.right} y1={MARGIN.top + plotHeight} y2={MARGIN.top + plotHeight} stroke="var(--mantine-color-gray-7)" />
      </svg>
    </Box>
  );
}
