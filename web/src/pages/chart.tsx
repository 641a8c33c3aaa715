import { useEffect, useRef } from 'react';
import { ColorType, createChart, LineSeries, type UTCTimestamp } from 'lightweight-charts';
import type { HistoryPoint } from '../api.ts';
import { usd } from '../format.ts';

/**
 * Price, liquidity and risk from token_history, drawn with lightweight-charts (loaded on the
 * token page only, so it is not part of the first load). The text below the chart carries the
 * same figures for screen readers.
 */

const HEIGHT = 280;

function series(history: HistoryPoint[], pick: (h: HistoryPoint) => number | null) {
  const seen = new Set<number>();
  return history
    .map((h) => ({ time: Math.floor(new Date(h.timestamp).getTime() / 1000) as UTCTimestamp, value: pick(h) }))
    .filter((p): p is { time: UTCTimestamp; value: number } => p.value !== null && Number.isFinite(p.time))
    .sort((a, b) => a.time - b.time)
    .filter((p) => (seen.has(p.time) ? false : (seen.add(p.time), true)));
}

export default function HistoryChart(props: { history: HistoryPoint[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!box.current) return;
    const dark = window.matchMedia('(prefers-color-scheme: dark)').matches;
    const text = dark ? '#d6d9de' : '#1f2328';
    const grid = dark ? '#2b3038' : '#e6e8eb';
    const chart = createChart(box.current, {
      height: HEIGHT,
      autoSize: true,
      layout: { background: { type: ColorType.Solid, color: 'transparent' }, textColor: text, attributionLogo: false },
      grid: { vertLines: { color: grid }, horzLines: { color: grid } },
      leftPriceScale: { visible: true },
      rightPriceScale: { visible: true },
      timeScale: { timeVisible: true },
    });
    chart.addSeries(LineSeries, { color: dark ? '#6cb6ff' : '#0b62d6', lineWidth: 2, title: 'Price', priceScaleId: 'right' })
      .setData(series(props.history, (h) => h.price_usd));
    chart.addSeries(LineSeries, { color: dark ? '#57d38c' : '#117a3d', lineWidth: 2, title: 'Liquidity', priceScaleId: 'left' })
      .setData(series(props.history, (h) => h.liquidity_usd));
    const risk = chart.addSeries(LineSeries, { color: dark ? '#ff7b72' : '#c62828', lineWidth: 1, lineStyle: 2, title: 'Risk', priceScaleId: 'risk' });
    risk.priceScale().applyOptions({ scaleMargins: { top: 0.7, bottom: 0 } });
    risk.setData(series(props.history, (h) => h.risk_score));
    chart.timeScale().fitContent();
    return () => chart.remove();
  }, [props.history]);

  const ordered = [...props.history].sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  const first = ordered[0];
  const last = ordered[ordered.length - 1];
  return (
    <figure class="chart">
      <div ref={box} class="chart-box" role="img" aria-label="Chart of price, liquidity and risk score over time" />
      <figcaption class="muted small-text">
        {props.history.length} snapshots. Price {usd(first?.price_usd)} → {usd(last?.price_usd)}; liquidity {usd(first?.liquidity_usd)} → {usd(last?.liquidity_usd)};
        risk {first?.risk_score ?? '—'} → {last?.risk_score ?? '—'}. Blue: price (right axis), green: liquidity (left axis), red dashed: risk.
      </figcaption>
    </figure>
  );
}
