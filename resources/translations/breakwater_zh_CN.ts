<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AttachStatus</name>
    <message>
        <source>%1 disconnected — reconnecting now (%2)</source>
        <extracomment>%1 is the remote Breakwater&apos;s address, %2 why the connection went</extracomment>
        <translation>%1 已断开 — 正在重新连接（%2）</translation>
    </message>
    <message>
        <source>%1 disconnected — reconnecting in %2 s (%3)</source>
        <extracomment>%1 is the remote Breakwater&apos;s address, %2 seconds until the next try, %3 why the connection went</extracomment>
        <translation>%1 已断开 — %2 秒后重新连接（%3）</translation>
    </message>
</context>
<context>
    <name>AttachedApp</name>
    <message>
        <source>Breakwater — attached to %1</source>
        <extracomment>%1 is the remote Breakwater&apos;s address, https://host:port</extracomment>
        <translation>Breakwater — 已连接到 %1</translation>
    </message>
    <message>
        <source>%1 (disconnected)</source>
        <extracomment>the window&apos;s title while the remote is away</extracomment>
        <translation>%1（已断开）</translation>
    </message>
    <message>
        <source>The control token for %1 is kept in %2 (only you may read it).</source>
        <extracomment>%1 is the remote&apos;s address, %2 the file</extracomment>
        <translation>%1 的控制令牌保存在 %2（只有你可以读取）。</translation>
    </message>
    <message>
        <source>The control token could not be kept: %1</source>
        <translation>无法保存控制令牌：%1</translation>
    </message>
    <message>
        <source>Control token for %1</source>
        <extracomment>%1 is the remote&apos;s address</extracomment>
        <translation>%1 的控制令牌</translation>
    </message>
    <message>
        <source>%1 refused this window&apos;s control token. Paste its owner&apos;s control token (on the remote: ~/.config/breakwater/control-token). It is kept for this address in %2, which only you may read.</source>
        <translation>%1 拒绝了此窗口的控制令牌。请粘贴其所有者的控制令牌（在远程机器上：~/.config/breakwater/control-token）。它将为此地址保存在 %2 中，只有你可以读取。</translation>
    </message>
    <message>
        <source>Not attached: %1 needs its owner&apos;s control token (attach again, or give --control-token FILE).</source>
        <translation>未连接：%1 需要其所有者的控制令牌（请重新连接，或使用 --control-token FILE）。</translation>
    </message>
    <message>
        <source>The remote&apos;s settings show once it has answered; not attached yet.</source>
        <translation>远程实例应答后才会显示其设置；尚未连接。</translation>
    </message>
    <message>
        <source>Settings: nothing changed.</source>
        <translation>设置：没有更改。</translation>
    </message>
    <message>
        <source>Applied to %1: %2.</source>
        <extracomment>%1 is the remote&apos;s address, %2 the settings changed (&quot;timeout, concurrency&quot;)</extracomment>
        <translation>已应用到 %1：%2。</translation>
    </message>
    <message>
        <source>%1 refused to change %2 (HTTP %3): %4. Its settings are as they were.</source>
        <extracomment>%1 the remote&apos;s address, %2 the settings (&quot;timeout&quot;), %3 the HTTP status, %4 the remote&apos;s reason</extracomment>
        <translation>%1 拒绝更改 %2（HTTP %3）：%4。其设置保持不变。</translation>
    </message>
    <message>
        <source>The token this window uses is not the remote owner&apos;s control token (or no longer is): attach again with --control-token FILE holding the token from the remote&apos;s ~/.config/breakwater/control-token.</source>
        <translation>此窗口使用的令牌不是（或不再是）远程所有者的控制令牌：请使用 --control-token FILE 重新连接，文件中放入远程 ~/.config/breakwater/control-token 里的令牌。</translation>
    </message>
    <message>
        <source>Settings not changed</source>
        <translation>设置未更改</translation>
    </message>
</context>
<context>
    <name>BreakerTimeline</name>
    <message>
        <source>transition (hover for the reason)</source>
        <translation>状态切换（悬停查看原因）</translation>
    </message>
    <message>
        <source>%1: %2
%3 – %4 (%5)
click: the calls received then; right-click: replot the charts for it</source>
        <translation>%1：%2
%3 – %4（%5）
单击：查看该时段收到的调用；右键：按该时段重绘图表</translation>
    </message>
    <message>
        <source>Show the calls of this time</source>
        <translation>显示该时段的调用</translation>
    </message>
    <message>
        <source>Replot every chart for this interval</source>
        <translation>按该时段重绘所有图表</translation>
    </message>
    <message>
        <source>No breaker data yet</source>
        <translation>暂无熔断器数据</translation>
    </message>
    <message>
        <source>admission paused</source>
        <translation>准入已暂停</translation>
    </message>
</context>
<context>
    <name>ChartLegend</name>
    <message>
        <source>Legend: %1</source>
        <translation>图例：%1</translation>
    </message>
</context>
<context>
    <name>ClearTextWarning</name>
    <message>
        <source>No TLS on %1: members&apos; tokens and prompts cross the network in clear text (start with --tls-cert and --tls-key)</source>
        <extracomment>%1 is the address Breakwater listens on, e.g. 0.0.0.0:8080</extracomment>
        <translation>%1 未启用 TLS：成员的令牌和提示词以明文在网络上传输（请用 --tls-cert 和 --tls-key 启动）</translation>
    </message>
</context>
<context>
    <name>DashboardModel</name>
    <message>
        <source>miss</source>
        <translation>未命中</translation>
    </message>
    <message>
        <source>joined</source>
        <translation>合并请求</translation>
    </message>
    <message>
        <source>hit</source>
        <translation>缓存命中</translation>
    </message>
    <message>
        <source>bypass</source>
        <translation>绕过</translation>
    </message>
    <message>
        <source>refused</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>fallback</source>
        <translation>回退</translation>
    </message>
    <message>
        <source>seen in the call log</source>
        <translation>见于调用日志</translation>
    </message>
    <message>
        <source>Breakwater restarted</source>
        <translation>Breakwater 已重启</translation>
    </message>
</context>
<context>
    <name>DashboardWindow</name>
    <message>
        <source>last %1 requests</source>
        <translation>最近 %1 个请求</translation>
    </message>
    <message>
        <source>Outcomes over time (requests per second, stacked)</source>
        <translation>结果随时间变化（每秒请求数，堆叠）</translation>
    </message>
    <message>
        <source>Breaker timeline</source>
        <translation>熔断器时间线</translation>
    </message>
    <message>
        <source>Latency vs arrival time</source>
        <translation>延迟与到达时间</translation>
    </message>
    <message>
        <source>Latency staircase: arrival to last byte, by arrival</source>
        <translation>延迟阶梯图：从到达到最后一个字节，按到达排序</translation>
    </message>
    <message>
        <source>Live</source>
        <translation>实时</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>In flight</source>
        <translation>进行中</translation>
    </message>
    <message>
        <source>Faults</source>
        <translation>故障</translation>
    </message>
    <message>
        <source>Faults (000 armed)</source>
        <translation>故障（已启用 000 条）</translation>
    </message>
    <message>
        <source>In flight (00000)</source>
        <translation>进行中（00000）</translation>
    </message>
    <message>
        <source>Back to live</source>
        <translation>返回实时</translation>
    </message>
    <message>
        <source>Dashboard</source>
        <translation>仪表盘</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Freeze the live view; events are still collected</source>
        <translation>冻结实时视图；事件仍会继续收集</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清空</translation>
    </message>
    <message>
        <source>Start every figure, chart, the breaker timeline and the table afresh</source>
        <translation>重新开始所有数字、图表、熔断器时间线和表格</translation>
    </message>
    <message>
        <source> Window </source>
        <translation> 时间窗口 </translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation>%1 分钟</translation>
    </message>
    <message>
        <source>Export charts…</source>
        <translation>导出图表…</translation>
    </message>
    <message>
        <source>Export table…</source>
        <translation>导出表格…</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>Demo scenarios</source>
        <translation>演示场景</translation>
    </message>
    <message>
        <source>Quit Breakwater</source>
        <translation>退出 Breakwater</translation>
    </message>
    <message>
        <source>Stop the proxy and quit (%1)</source>
        <translation>停止代理并退出（%1）</translation>
    </message>
    <message>
        <source>Quit Breakwater?</source>
        <translation>退出 Breakwater？</translation>
    </message>
    <message>
        <source>There is no system tray to keep Breakwater in, so closing this window stops the proxy. Apps pointed at %1 will fail to connect until it runs again.</source>
        <translation>没有系统托盘可以容纳 Breakwater，关闭此窗口会停止代理。指向 %1 的应用在它重新运行之前将无法连接。</translation>
    </message>
    <message>
        <source>Keep running</source>
        <translation>继续运行</translation>
    </message>
    <message>
        <source>Outcomes (requests/s, stacked)</source>
        <translation>结果（请求/秒，堆叠）</translation>
    </message>
    <message>
        <source>Latency vs arrival</source>
        <translation>延迟与到达</translation>
    </message>
    <message>
        <source>Latency staircase</source>
        <translation>延迟阶梯图</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Breakwater (charts paused)</source>
        <translation>Breakwater（图表已暂停）</translation>
    </message>
    <message>
        <source>listening on %1%2</source>
        <translation>监听于 %1%2</translation>
    </message>
    <message>
        <source>  ·  demo mode (mock provider)</source>
        <translation>  ·  演示模式（模拟服务商）</translation>
    </message>
    <message>
        <source>Outcomes over time</source>
        <translation>结果随时间变化</translation>
    </message>
    <message>
        <source>Requests per second, stacked by how they were served: in flight, miss, joined, cache hit, bypass, refused, failed</source>
        <translation>每秒请求数，按处理方式堆叠：进行中、未命中、合并请求、缓存命中、绕过、拒绝、失败</translation>
    </message>
    <message>
        <source>Each upstream&apos;s circuit breaker over time: closed, half-open or open, with its transitions</source>
        <translation>每个上游的熔断器随时间的状态：闭合、半开或断开，以及状态切换</translation>
    </message>
    <message>
        <source>Each call&apos;s latency by the time it arrived, coloured by how it was served or why it failed</source>
        <translation>每个调用的延迟与到达时间，颜色表示处理方式或失败原因</translation>
    </message>
    <message>
        <source>The newest requests as bars from arrival to last byte, in order of arrival</source>
        <translation>最新的请求，以从到达到最后一个字节的条形按到达顺序显示</translation>
    </message>
    <message>
        <source>Figures</source>
        <translation>数字</translation>
    </message>
    <message>
        <source>Requests, upstream calls, joined, cache hits, refused, failed, cost and calls in flight</source>
        <translation>请求、上游调用、合并请求、缓存命中、拒绝、失败、费用和进行中的调用</translation>
    </message>
    <message>
        <source>The table of recent requests, newest first</source>
        <translation>最近请求的表格，最新的在前</translation>
    </message>
    <message>
        <source>The upstream calls running or queued now</source>
        <translation>正在运行或排队的上游调用</translation>
    </message>
    <message>
        <source>Fault injection rules armed on this proxy</source>
        <translation>此代理上已启用的故障注入规则</translation>
    </message>
    <message>
        <source>Dashboard views</source>
        <translation>仪表盘视图</translation>
    </message>
    <message>
        <source>Live charts, the request table, the calls in flight and fault injection</source>
        <translation>实时图表、请求表格、进行中的调用和故障注入</translation>
    </message>
    <message>
        <source>View</source>
        <translation>视图</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>System</source>
        <extracomment>The desktop&apos;s own colours</extracomment>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Faults (%1 armed)</source>
        <translation>故障（已启用 %1 条）</translation>
    </message>
    <message>
        <source>In flight (%1)</source>
        <translation>进行中（%1）</translation>
    </message>
    <message>
        <source>The charts show %1–%2, replotted from the %3 (%4 calls)</source>
        <translation>图表显示 %1–%2，根据%3重绘（%4 个调用）</translation>
    </message>
    <message>
        <source>call log</source>
        <translation>调用日志</translation>
    </message>
    <message>
        <source>calls held</source>
        <translation>内存中的调用</translation>
    </message>
    <message>
        <source>could not draw %1</source>
        <translation>无法绘制 %1</translation>
    </message>
    <message>
        <source>could not write %1</source>
        <translation>无法写入 %1</translation>
    </message>
    <message>
        <source>Export table</source>
        <translation>导出表格</translation>
    </message>
    <message>
        <source>The table was not saved: %1.</source>
        <translation>表格未保存：%1。</translation>
    </message>
    <message>
        <source>%1 rows saved to %2</source>
        <translation>已将 %1 行保存到 %2</translation>
    </message>
    <message>
        <source>Export charts as PNG into</source>
        <translation>将图表导出为 PNG 到</translation>
    </message>
    <message>
        <source>%1 charts saved in %2 (%3, ...)</source>
        <translation>已将 %1 张图表保存到 %2（%3 等）</translation>
    </message>
    <message>
        <source>Export charts</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>The charts were not saved: %1.</source>
        <translation>图表未保存：%1。</translation>
    </message>
    <message>
        <source>Export the request table as CSV</source>
        <translation>将请求表格导出为 CSV</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <source>attached to %1 (TLS)</source>
        <extracomment>the status bar of `breakwater --attach`; %1 is the remote&apos;s address</extracomment>
        <translation>已连接到 %1（TLS）</translation>
    </message>
    <message>
        <source>attached to %1 (cleartext, no TLS)</source>
        <translation>已连接到 %1（明文，无 TLS）</translation>
    </message>
    <message>
        <source>Fleet</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>The instances sharing this Redis, each one&apos;s calls, and the fleet&apos;s totals</source>
        <translation>共享此 Redis 的实例、各自的调用数以及集群合计</translation>
    </message>
</context>
<context>
    <name>DemoController</name>
    <message>
        <source>Hang: provider hangs from 15 s to 75 s (proxy timeout %1 s)</source>
        <translation>挂起：服务商在 15 秒到 75 秒之间无响应（代理超时 %1 秒）</translation>
    </message>
    <message>
        <source>Injected hang: hang:for=60s from 15 s (proxy timeout %1 s; --timeout 5 opens the breaker)</source>
        <translation>注入挂起：从 15 秒起 hang:for=60s（代理超时 %1 秒；--timeout 5 会使熔断器断开）</translation>
    </message>
    <message>
        <source>Fallback: 529 overloaded from 15 s to 75 s, a second provider stands in</source>
        <translation>回退：15 秒到 75 秒返回 529 过载，由第二个服务商接替</translation>
    </message>
    <message>
        <source>Herd: %1 identical requests at once</source>
        <translation>洪峰：同时发送 %1 个相同请求</translation>
    </message>
    <message>
        <source>Outage: 503s from 15 s to 75 s in steady traffic</source>
        <translation>故障：稳定流量中第 15 秒到第 75 秒返回 503</translation>
    </message>
    <message>
        <source>Burst of %1 prompts, %2 at a time (this proxy)</source>
        <translation>突发 %1 个提示词，每次 %2 个（本代理）</translation>
    </message>
    <message>
        <source>Burst of %1 prompts, %2 at a time (second proxy, concurrency %2)</source>
        <translation>突发 %1 个提示词，每次 %2 个（第二个代理，并发数 %2）</translation>
    </message>
    <message>
        <source>Stop scenario</source>
        <translation>停止场景</translation>
    </message>
</context>
<context>
    <name>DemoScenarios</name>
    <message>
        <source>%1: %2 requests, %3 upstream calls; %4; status %5; %6 without an answer; slowest %7 ms%8</source>
        <extracomment>The demo&apos;s status line. Keep &quot;; &quot; between the parts: a narrow status bar drops middle parts there</extracomment>
        <translation>%1：%2 个请求，%3 个上游调用; %4; 状态 %5; %6 个无响应; 最慢 %7 毫秒%8</translation>
    </message>
    <message>
        <source>no de-dup headers</source>
        <translation>无去重响应头</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>; %1 answered by the fallback</source>
        <translation>; %1 个由回退上游响应</translation>
    </message>
    <message>
        <source> (stopped)</source>
        <translation>（已停止）</translation>
    </message>
    <message>
        <source>Herd</source>
        <translation>洪峰</translation>
    </message>
    <message>
        <source>Outage</source>
        <translation>故障</translation>
    </message>
    <message>
        <source>Hang</source>
        <translation>挂起</translation>
    </message>
    <message>
        <source>Burst</source>
        <translation>突发</translation>
    </message>
    <message>
        <source>Injected hang</source>
        <translation>注入挂起</translation>
    </message>
    <message>
        <source>Fallback</source>
        <translation>回退</translation>
    </message>
    <message>
        <source>identical requests at once against a 1.5 s provider: one upstream call</source>
        <translation>同时向 1.5 秒响应的服务商发送相同请求：只有一次上游调用</translation>
    </message>
    <message>
        <source>one new prompt every 2 s; the provider answers 503 from 15 s to 75 s</source>
        <translation>每 2 秒一个新提示词；服务商在第 15 秒到第 75 秒返回 503</translation>
    </message>
    <message>
        <source>one new prompt every 2 s; the provider hangs from 15 s to 75 s</source>
        <translation>每 2 秒一个新提示词；服务商在第 15 秒到第 75 秒挂起</translation>
    </message>
    <message>
        <source>different prompts at once against a 1.5 s provider</source>
        <translation>同时向 1.5 秒响应的服务商发送不同的提示词</translation>
    </message>
    <message>
        <source>one new prompt every 2 s; Breakwater injects a hang (hang:for=60s) from 15 s to 75 s</source>
        <translation>每 2 秒一个新提示词；Breakwater 在第 15 秒到第 75 秒注入挂起（hang:for=60s）</translation>
    </message>
    <message>
        <source>one new prompt every 2 s; the provider answers 529 overloaded from 15 s to 75 s, and a second one stands in</source>
        <translation>每 2 秒一个新提示词；服务商在第 15 秒到第 75 秒返回 529 过载，由第二个服务商顶替</translation>
    </message>
    <message>
        <source>%1: %2 of %3 answered</source>
        <translation>%1：已响应 %2/%3</translation>
    </message>
    <message>
        <source>, %1 s in</source>
        <translation>，已进行 %1 秒</translation>
    </message>
    <message>
        <source>%1 miss</source>
        <translation>未命中 %1</translation>
    </message>
    <message>
        <source>%1 joined</source>
        <translation>合并请求 %1</translation>
    </message>
    <message>
        <source>%1 hit</source>
        <translation>缓存命中 %1</translation>
    </message>
    <message>
        <source>%1 bypass</source>
        <translation>绕过 %1</translation>
    </message>
    <message>
        <source>%1 refused</source>
        <translation>拒绝 %1</translation>
    </message>
</context>
<context>
    <name>DesktopApp</name>
    <message>
        <source>Breakwater cannot start</source>
        <translation>Breakwater 无法启动</translation>
    </message>
    <message>
        <source>Breakwater cannot start: %1</source>
        <extracomment>%1 is why, e.g. &quot;cannot listen on 127.0.0.1:8080: the address is already in use ...&quot;</extracomment>
        <translation>Breakwater 无法启动：%1</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Call log off: %1. Calls are still served, but no longer recorded.</source>
        <translation>调用日志已关闭：%1。调用仍会被处理，但不再记录。</translation>
    </message>
    <message>
        <source>Breakwater (call log off)</source>
        <translation>Breakwater（调用日志已关闭）</translation>
    </message>
    <message>
        <source>Breakwater: call log off</source>
        <translation>Breakwater：调用日志已关闭</translation>
    </message>
</context>
<context>
    <name>FaultBanner</name>
    <message>
        <source>Faults…</source>
        <translation>故障…</translation>
    </message>
    <message>
        <source>Show the Faults tab</source>
        <translation>显示“故障”标签页</translation>
    </message>
    <message>
        <source>Clear all</source>
        <translation>全部清除</translation>
    </message>
    <message>
        <source>Disarm every fault rule</source>
        <translation>停用所有故障规则</translation>
    </message>
    <message>
        <source>Resume admission</source>
        <translation>恢复准入</translation>
    </message>
    <message>
        <source>Admit new calls again</source>
        <translation>重新接纳新调用</translation>
    </message>
    <message>
        <source>Admission paused: every new call is refused with 503 (calls in flight go on)</source>
        <translation>准入已暂停：所有新调用均以 503 拒绝（进行中的调用继续）</translation>
    </message>
    <message>
        <source>Fault injection armed: %1 (calls it matches fail on purpose)</source>
        <translation>故障注入已启用：%1（匹配的调用会被故意设为失败）</translation>
    </message>
</context>
<context>
    <name>FaultsPanel</name>
    <message>
        <source>whole fleet</source>
        <translation>整个集群</translation>
    </message>
    <message>
        <source>Whole fleet</source>
        <translation>整个集群</translation>
    </message>
    <message>
        <source>Arm the rule on every Breakwater that shares this one&apos;s Redis (--shared-state), so the team rehearses the outage together.</source>
        <translation>在共享此实例 Redis（--shared-state）的每个 Breakwater 上启用该规则，让团队一起演练故障。</translation>
    </message>
    <message>
        <source>D, e.g. 2s</source>
        <translation>时长，例如 2s</translation>
    </message>
    <message>
        <source>D, e.g. 500ms</source>
        <translation>时长，例如 500ms</translation>
    </message>
    <message>
        <source>events, e.g. 3</source>
        <translation>事件数，例如 3</translation>
    </message>
    <message>
        <source>events, e.g. 2</source>
        <translation>事件数，例如 2</translation>
    </message>
    <message>
        <source>both upstreams</source>
        <translation>两个上游</translation>
    </message>
    <message>
        <source>p %1 %</source>
        <extracomment>A rule firing for a percentage of the calls it matches</extracomment>
        <translation>概率 %1 %</translation>
    </message>
    <message>
        <source>Presets:</source>
        <translation>预设：</translation>
    </message>
    <message>
        <source>Arms %1</source>
        <translation>启用 %1</translation>
    </message>
    <message>
        <source>Clear all</source>
        <translation>全部清除</translation>
    </message>
    <message>
        <source>Disarm every rule</source>
        <translation>停用所有规则</translation>
    </message>
    <message>
        <source>rule</source>
        <translation>规则</translation>
    </message>
    <message>
        <source>kind</source>
        <extracomment>&quot;for&quot;: how long the rule stays armed (its for= option)</extracomment>
        <translation>类型</translation>
    </message>
    <message>
        <source>scope</source>
        <translation>范围</translation>
    </message>
    <message>
        <source>fired</source>
        <translation>已触发</translation>
    </message>
    <message>
        <source>left / expires</source>
        <translation>剩余 / 到期</translation>
    </message>
    <message>
        <source>Add a rule (off until armed; injected calls go through the breaker, the log and the charts as real failures)</source>
        <translation>添加规则（启用前不生效；注入的调用会像真实故障一样经过熔断器、日志和图表）</translation>
    </message>
    <message>
        <source>any route</source>
        <translation>任意路由</translation>
    </message>
    <message>
        <source>any model</source>
        <translation>任意模型</translation>
    </message>
    <message>
        <source>every call</source>
        <translation>每个调用</translation>
    </message>
    <message>
        <source>p % of calls</source>
        <translation>p % 的调用</translation>
    </message>
    <message>
        <source>next N calls</source>
        <translation>接下来 N 个调用</translation>
    </message>
    <message>
        <source>for, e.g. 60s</source>
        <translation>持续时间，例如 60s</translation>
    </message>
    <message>
        <source>KIND[:OPTION=VALUE]...  e.g. 503:for=60s</source>
        <extracomment>KIND, OPTION and VALUE are the rule&apos;s syntax; keep &quot;503:for=60s&quot; as it is</extracomment>
        <translation>KIND[:OPTION=VALUE]...  例如 503:for=60s</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>value</source>
        <translation>值</translation>
    </message>
    <message>
        <source>upstream</source>
        <translation>上游</translation>
    </message>
    <message>
        <source>route</source>
        <translation>路由</translation>
    </message>
    <message>
        <source>model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>fires for</source>
        <translation>触发于</translation>
    </message>
    <message>
        <source>for</source>
        <translation>持续</translation>
    </message>
    <message>
        <source>calls</source>
        <translation>调用数</translation>
    </message>
    <message>
        <source>no value</source>
        <translation>无值</translation>
    </message>
    <message>
        <source>No fault injected since start.</source>
        <translation>启动以来未注入故障。</translation>
    </message>
    <message>
        <source>Injected since start: %1</source>
        <translation>启动以来已注入：%1</translation>
    </message>
    <message>
        <source>%1 calls</source>
        <translation>%1 个调用</translation>
    </message>
    <message>
        <source>%1 s</source>
        <comment>seconds left</comment>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>until removed</source>
        <translation>直到移除</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
</context>
<context>
    <name>FiguresPanel</name>
    <message>
        <source>requests</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>Client requests answered</source>
        <translation>已应答的客户端请求</translation>
    </message>
    <message>
        <source>upstream calls</source>
        <translation>上游调用</translation>
    </message>
    <message>
        <source>joined</source>
        <translation>合并请求</translation>
    </message>
    <message>
        <source>Requests that rode along on an identical call in flight</source>
        <translation>搭上了一个相同的进行中调用的请求</translation>
    </message>
    <message>
        <source>cache hits</source>
        <translation>缓存命中</translation>
    </message>
    <message>
        <source>Requests answered from the answer cache</source>
        <translation>由应答缓存回答的请求</translation>
    </message>
    <message>
        <source>refused</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Refused without an upstream call: open breaker, spend limit, full queue or bad input</source>
        <translation>未调用上游即被拒绝：熔断器断开、费用上限、队列已满或输入无效</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>failed: 503 +00</source>
        <translation>失败：503 +00</translation>
    </message>
    <message>
        <source>cost spent</source>
        <translation>已花费</translation>
    </message>
    <message>
        <source>Cost of the upstream calls made</source>
        <translation>已发出的上游调用的费用</translation>
    </message>
    <message>
        <source>cost saved</source>
        <translation>已节省</translation>
    </message>
    <message>
        <source>Cost of the calls that joined or cache hits did not make</source>
        <translation>合并请求和缓存命中省下的调用费用</translation>
    </message>
    <message>
        <source>in flight</source>
        <translation>进行中</translation>
    </message>
    <message>
        <source>Upstream calls running now</source>
        <translation>正在运行的上游调用</translation>
    </message>
    <message>
        <source>oldest in flight</source>
        <translation>最久的进行中</translation>
    </message>
    <message>
        <source>How long the oldest request not yet answered has waited</source>
        <translation>最早的未应答请求已等待的时间</translation>
    </message>
    <message>
        <source>queued</source>
        <translation>排队</translation>
    </message>
    <message>
        <source>Upstream calls waiting for a free pool slot</source>
        <translation>等待空闲连接池槽位的上游调用</translation>
    </message>
    <message>
        <source>failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>failed: %1 +%2 other</source>
        <translation>失败：%1 +%2 其他</translation>
    </message>
    <message>
        <source>failed: %1 +%2</source>
        <translation>失败：%1 +%2</translation>
    </message>
    <message>
        <source>in flight, %1 on 2nd proxy</source>
        <translation>进行中，第二个代理上 %1 个</translation>
    </message>
    <message>
        <source>in flight +%1</source>
        <translation>进行中 +%1</translation>
    </message>
    <message>
        <source>queued, %1 on 2nd proxy</source>
        <translation>排队，第二个代理上 %1 个</translation>
    </message>
    <message>
        <source>queued +%1</source>
        <translation>排队 +%1</translation>
    </message>
    <message>
        <source>%1 breaker</source>
        <translation>%1 熔断器</translation>
    </message>
    <message>
        <source>State of the %1 upstream&apos;s circuit breaker</source>
        <translation>上游 %1 的熔断器状态</translation>
    </message>
    <message>
        <source>Served, but did not end well: upstream errors by status, timeouts, unreachable, cut streams, ...</source>
        <translation>已处理但未正常结束：按状态码分的上游错误、超时、无法连接、流被截断等</translation>
    </message>
    <message>
        <source>Calls that reached a provider (misses and bypasses, not the ones a fault rule answered instead): what is billed</source>
        <translation>到达服务商的调用（未命中和绕过，不含被故障规则代答的调用）：即计费的调用</translation>
    </message>
    <message>
        <source>breakers</source>
        <translation>熔断器</translation>
    </message>
    <message>
        <source>The upstreams&apos; circuit breakers</source>
        <translation>各上游的熔断器</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>all closed</source>
        <translation>全部闭合</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%2 %1 个</translation>
    </message>
    <message>
        <source>breaker</source>
        <translation>个熔断器</translation>
    </message>
    <message>
        <source>history from %1 to %2 (%3 calls from the call log, counted above)</source>
        <translation>历史 %1 至 %2（调用日志中的 %3 个调用，已计入上方）</translation>
    </message>
</context>
<context>
    <name>FleetPanel</name>
    <message>
        <source>Instance</source>
        <translation>实例</translation>
    </message>
    <message>
        <source>Upstream calls</source>
        <translation>上游调用</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>Joined</source>
        <translation>合并请求</translation>
    </message>
    <message>
        <source>Misses</source>
        <translation>未命中</translation>
    </message>
    <message>
        <source>Cache hits</source>
        <translation>缓存命中</translation>
    </message>
    <message>
        <source>Last heartbeat</source>
        <translation>最近心跳</translation>
    </message>
    <message>
        <source>Fleet (%1)</source>
        <translation>集群（%1）</translation>
    </message>
    <message>
        <source>Fleet (degraded)</source>
        <translation>集群（降级）</translation>
    </message>
    <message>
        <source>fleet: degraded (local only)</source>
        <translation>集群：降级（仅本地）</translation>
    </message>
    <message>
        <source>fleet: %1, shared</source>
        <translation>集群：%1，共享中</translation>
    </message>
    <message>
        <source>instance</source>
        <translation>个实例</translation>
    </message>
    <message>
        <source>instances</source>
        <translation>个实例</translation>
    </message>
    <message>
        <source>%1 joined, %2</source>
        <translation>%1 合并请求，%2</translation>
    </message>
    <message>
        <source>miss</source>
        <translation>次未命中</translation>
    </message>
    <message>
        <source>misses</source>
        <translation>次未命中</translation>
    </message>
    <message>
        <source>%1 alive, sharing one Redis</source>
        <translation>%1 存活，共享同一个 Redis</translation>
    </message>
    <message>
        <source>fleet-wide %1</source>
        <translation>集群合计 %1</translation>
    </message>
    <message>
        <source>this instance %1</source>
        <translation>本实例 %1</translation>
    </message>
    <message>
        <source>Redis is degraded: this instance runs on local state and cannot see the others</source>
        <translation>Redis 已降级：本实例使用本地状态运行，看不到其他实例</translation>
    </message>
    <message>
        <source>Redis degraded: local state only</source>
        <translation>Redis 降级：仅本地状态</translation>
    </message>
    <message>
        <source>now (this instance)</source>
        <translation>现在（本实例）</translation>
    </message>
    <message>
        <source>%1 ago</source>
        <translation>%1 前</translation>
    </message>
    <message>
        <source>%1 ago, late</source>
        <translation>%1 前，已延迟</translation>
    </message>
    <message>
        <source>%1 (this one)</source>
        <translation>%1（本实例）</translation>
    </message>
    <message>
        <source>Instance %1</source>
        <translation>实例 %1</translation>
    </message>
    <message>
        <source>Whole fleet (%1)</source>
        <translation>整个集群（%1）</translation>
    </message>
    <message>
        <source>The listed instances together</source>
        <translation>所列实例的合计</translation>
    </message>
</context>
<context>
    <name>GettingStarted</name>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>&lt;b&gt;Point an app at Breakwater:&lt;/b&gt; set the SDK&apos;s base URL in the shell that starts it, then run it as usual; its calls appear here.</source>
        <translation>&lt;b&gt;让应用接入 Breakwater：&lt;/b&gt;在启动应用的 shell 中设置 SDK 的 base URL，然后照常运行；它的调用会显示在这里。</translation>
    </message>
    <message>
        <source>Demo mode: the mock provider takes any key. The Demo scenarios menu plays a herd, an outage and a hang without any app.</source>
        <translation>演示模式：模拟服务商接受任意密钥。“演示场景”菜单无需任何应用即可演示请求洪峰、故障和挂起。</translation>
    </message>
    <message>
        <source>Your own API keys (OPENAI_API_KEY, ANTHROPIC_API_KEY) stay as they are: Breakwater passes them through.</source>
        <translation>您自己的 API 密钥（OPENAI_API_KEY、ANTHROPIC_API_KEY）保持不变：Breakwater 会原样转发。</translation>
    </message>
</context>
<context>
    <name>InFlightPanel</name>
    <message>
        <source>No upstream call in flight.</source>
        <translation>没有进行中的上游调用。</translation>
    </message>
    <message>
        <source>%1 in flight, oldest first.</source>
        <translation>%1 进行中，最早的在前。</translation>
    </message>
    <message>
        <source>upstream call</source>
        <translation>个上游调用</translation>
    </message>
    <message>
        <source>upstream calls</source>
        <translation>个上游调用</translation>
    </message>
    <message>
        <source>Showing the %1 oldest; %2 newer not listed.</source>
        <translation>显示最早的 %1 个；另有 %2 个较新的未列出。</translation>
    </message>
</context>
<context>
    <name>InFlightTableModel</name>
    <message>
        <source>1 + %1 joined</source>
        <translation>1 + %1 个合并</translation>
    </message>
    <message>
        <source>(%1 hung up)</source>
        <translation>（%1 个已挂断）</translation>
    </message>
    <message>
        <source>Events</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>waiting for first byte</source>
        <translation>等待首字节</translation>
    </message>
    <message>
        <source>Trial</source>
        <translation>试探</translation>
    </message>
    <message>
        <source>queued #%1</source>
        <translation>排队第 %1 位</translation>
    </message>
    <message>
        <source>receiving</source>
        <translation>接收中</translation>
    </message>
    <message>
        <source>streaming</source>
        <translation>流式传输中</translation>
    </message>
    <message>
        <source>abandoned (all hung up)</source>
        <translation>已放弃（全部挂断）</translation>
    </message>
    <message>
        <source>%1 %2 (%3)
request %4, since %5</source>
        <translation>%1 %2（%3）
请求 %4，开始于 %5</translation>
    </message>
    <message>
        <source>stream</source>
        <translation>流</translation>
    </message>
    <message>
        <source>not streamed</source>
        <translation>非流式</translation>
    </message>
    <message>
        <source>trial</source>
        <translation>试探</translation>
    </message>
    <message>
        <source>Route</source>
        <translation>路由</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Age</source>
        <translation>已用时</translation>
    </message>
    <message>
        <source>Riders</source>
        <translation>乘客</translation>
    </message>
    <message>
        <source>Bytes</source>
        <translation>字节</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Injected</source>
        <translation>注入</translation>
    </message>
</context>
<context>
    <name>LatencyScatter</name>
    <message>
        <source>arrival</source>
        <translation>到达时间</translation>
    </message>
    <message>
        <source>latency (s)</source>
        <translation>延迟（秒）</translation>
    </message>
</context>
<context>
    <name>LatencyStaircase</name>
    <message>
        <source>%1 of these from the call log (%2–%3)</source>
        <translation>其中 %1 个来自调用日志（%2–%3）</translation>
    </message>
    <message>
        <source>request</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>requests</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>%1 by arrival ↓</source>
        <translation>%1，按到达排序 ↓</translation>
    </message>
    <message>
        <source>newest %1 of %2 by arrival ↓</source>
        <translation>%2 中最新的 %1，按到达排序 ↓</translation>
    </message>
    <message>
        <source>answered by %1, the fallback of %2</source>
        <translation>由 %1 应答，即 %2 的备用上游</translation>
    </message>
    <message>
        <source>fallback</source>
        <translation>备用</translation>
    </message>
    <message>
        <source>in flight</source>
        <translation>进行中</translation>
    </message>
    <message>
        <source>queue wait</source>
        <translation>排队等待</translation>
    </message>
    <message>
        <source>joined wait</source>
        <translation>合并等待</translation>
    </message>
    <message>
        <source>upstream</source>
        <translation>上游</translation>
    </message>
    <message>
        <source>#%1  in flight  %2
%3 %4
arrived +%5, waiting %6</source>
        <translation>#%1  进行中  %2
%3 %4
到达 +%5，已等待 %6</translation>
    </message>
    <message>
        <source>, ended %1</source>
        <translation>，结束于 %1</translation>
    </message>
    <message>
        <source>%1 %2  status %3</source>
        <translation>%1 %2  状态 %3</translation>
    </message>
    <message>
        <source>arrived +%1</source>
        <translation>到达 +%1</translation>
    </message>
    <message>
        <source>waited on a joined flight %1</source>
        <translation>等待所合并的调用 %1</translation>
    </message>
    <message>
        <source>queue wait %1, upstream %2</source>
        <translation>排队等待 %1，上游 %2</translation>
    </message>
    <message>
        <source>total %1</source>
        <translation>总计 %1</translation>
    </message>
    <message>
        <source>injected by Breakwater: %1</source>
        <translation>由 Breakwater 注入：%1</translation>
    </message>
    <message>
        <source>injected</source>
        <translation>注入</translation>
    </message>
    <message>
        <source>No requests yet</source>
        <translation>暂无请求</translation>
    </message>
</context>
<context>
    <name>Message</name>
    <message>
        <source>Listen address: &apos;%1&apos; is not valid; expected HOST:PORT with a loopback IP address, e.g. 127.0.0.1:8080 (port 0 picks a free one).</source>
        <translation>监听地址：“%1”无效；应为 HOST:PORT 形式的环回 IP 地址，例如 127.0.0.1:8080（端口 0 表示自动选择空闲端口）。</translation>
    </message>
    <message>
        <source>Listen address: %1 is not a loopback address. Breakwater listens on loopback only; binding elsewhere needs an explicit command-line option and an access token.</source>
        <translation>监听地址：%1 不是环回地址。Breakwater 只监听环回地址；绑定到其他地址需要显式的命令行选项和访问令牌。</translation>
    </message>
    <message>
        <source>%1: &apos;%2&apos; is not valid; expected an http(s) URL such as %3.</source>
        <extracomment>%1 is the setting (&quot;OpenAI upstream&quot;), %2 what was typed, %3 an example URL</extracomment>
        <translation>%1：“%2”无效；应为 http(s) URL，例如 %3。</translation>
    </message>
    <message>
        <source>%1: %2 s is not valid; expected %3 seconds.</source>
        <extracomment>%1 is the setting (&quot;Timeout&quot;), %2 the seconds typed, %3 &quot;0 or more&quot; or &quot;more than 0&quot;</extracomment>
        <translation>%1：%2 秒无效；秒数应%3。</translation>
    </message>
    <message>
        <source>0 or more</source>
        <translation>不小于 0</translation>
    </message>
    <message>
        <source>more than 0</source>
        <translation>大于 0</translation>
    </message>
    <message>
        <source>%1: %2 is not valid; expected a whole number from %3 to %4.</source>
        <extracomment>%1 is the setting (&quot;Concurrency&quot;), %2 the number typed</extracomment>
        <translation>%1：%2 无效；应为 %3 到 %4 之间的整数。</translation>
    </message>
    <message>
        <source>OpenAI upstream</source>
        <translation>OpenAI 上游</translation>
    </message>
    <message>
        <source>Anthropic upstream</source>
        <translation>Anthropic 上游</translation>
    </message>
    <message>
        <source>Timeout</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>Concurrency</source>
        <translation>并发数</translation>
    </message>
    <message>
        <source>De-dup window</source>
        <translation>去重窗口</translation>
    </message>
    <message>
        <source>Cache size (MB)</source>
        <translation>响应缓存大小（MB）</translation>
    </message>
    <message>
        <source>Breaker failures</source>
        <translation>熔断失败次数</translation>
    </message>
    <message>
        <source>Breaker cool-down</source>
        <translation>熔断冷却</translation>
    </message>
    <message>
        <source>Spend limit: %1 is not valid; expected US dollars per day from 0 (no limit) to %2.</source>
        <translation>花费上限：%1 无效；应为每天 0（无上限）到 %2 美元。</translation>
    </message>
    <message>
        <source>cannot remove %1</source>
        <translation>无法删除 %1</translation>
    </message>
    <message>
        <source>cannot create the folder of %1</source>
        <translation>无法创建 %1 所在的文件夹</translation>
    </message>
    <message>
        <source>cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>fault rule &apos;%1&apos;: %2</source>
        <translation>故障规则“%1”：%2</translation>
    </message>
    <message>
        <source>empty fault rule: expected KIND[:OPTION=VALUE]..., KIND one of %1</source>
        <translation>故障规则为空：应为 KIND[:OPTION=VALUE]...，KIND 为以下之一：%1</translation>
    </message>
    <message>
        <source>a rule holds no commas or spaces; options are separated by &apos;:&apos;</source>
        <translation>规则中不能有逗号或空格；选项之间用“:”分隔</translation>
    </message>
    <message>
        <source>no status kind %1; the status kinds are 429, 500, 502, 503 and 529</source>
        <translation>没有状态类型 %1；状态类型有 429、500、502、503 和 529</translation>
    </message>
    <message>
        <source>%1 needs a duration, e.g. %1=2s or %1=500ms (more than 0, at most 1 h)</source>
        <translation>%1 需要一个时长，例如 %1=2s 或 %1=500ms（大于 0，最多 1 小时）</translation>
    </message>
    <message>
        <source>%1 needs the number of events that pass first, e.g. %1=3</source>
        <translation>%1 需要先放行的事件数，例如 %1=3</translation>
    </message>
    <message>
        <source>unknown kind &apos;%1&apos;; the kinds are %2</source>
        <translation>未知类型“%1”；可用的类型有 %2</translation>
    </message>
    <message>
        <source>%1 takes no value (write options after a &apos;:&apos;, e.g. %1:count=2)</source>
        <translation>%1 不带值（选项写在“:”之后，例如 %1:count=2）</translation>
    </message>
    <message>
        <source>option &apos;%1&apos; needs a value (NAME=VALUE)</source>
        <translation>选项“%1”需要一个值（NAME=VALUE）</translation>
    </message>
    <message>
        <source>option %1 is given twice</source>
        <translation>选项 %1 给出了两次</translation>
    </message>
    <message>
        <source>upstream is openai or anthropic, not &apos;%1&apos; (leave it out for both)</source>
        <translation>upstream 应为 openai 或 anthropic，而不是“%1”（两者都适用时请省略）</translation>
    </message>
    <message>
        <source>route is a path such as /v1/chat/completions, not &apos;%1&apos;</source>
        <translation>route 应为路径，例如 /v1/chat/completions，而不是“%1”</translation>
    </message>
    <message>
        <source>p is a percentage from 0 to 100, not &apos;%1&apos;</source>
        <translation>p 应为 0 到 100 之间的百分比，而不是“%1”</translation>
    </message>
    <message>
        <source>count is a whole number of calls from 1 to 1000000, not &apos;%1&apos;</source>
        <translation>count 应为 1 到 1000000 之间的整数调用次数，而不是“%1”</translation>
    </message>
    <message>
        <source>for is how long the rule stays armed, e.g. for=60 or for=30s (more than 0), not &apos;%1&apos;</source>
        <translation>for 是规则保持启用的时长，例如 for=60 或 for=30s（大于 0），而不是“%1”</translation>
    </message>
    <message>
        <source>retry-after goes with a status kind (429, 500, 502, 503, 529)</source>
        <translation>retry-after 只能与状态类型（429、500、502、503、529）一起使用</translation>
    </message>
    <message>
        <source>retry-after is seconds from 0 to 3600, e.g. retry-after=2, not &apos;%1&apos;</source>
        <translation>retry-after 应为 0 到 3600 之间的秒数，例如 retry-after=2，而不是“%1”</translation>
    </message>
    <message>
        <source>unknown option &apos;%1&apos;; the options are %2</source>
        <translation>未知选项“%1”；可用的选项有 %2</translation>
    </message>
    <message>
        <source>open on the fleet</source>
        <translation>在集群中已断开</translation>
    </message>
    <message>
        <source>closed on the fleet</source>
        <translation>在集群中已闭合</translation>
    </message>
    <message>
        <source>no PEM certificate could be read from %1</source>
        <translation>无法从 %1 读取 PEM 证书</translation>
    </message>
    <message>
        <source>stuck: no byte for %1 s after a timeout</source>
        <translation>卡住：发生超时后 %1 秒内没有收到任何字节</translation>
    </message>
    <message>
        <source>opened by hand</source>
        <translation>手动断开</translation>
    </message>
    <message>
        <source>closed by hand</source>
        <translation>手动闭合</translation>
    </message>
    <message>
        <source>(empty line)</source>
        <translation>（空行）</translation>
    </message>
    <message>
        <source>%1; %2</source>
        <extracomment>Two parts of the replay&apos;s difference line (&quot;same status 200; length 312 → 166 bytes&quot;)</extracomment>
        <translation>%1；%2</translation>
    </message>
    <message>
        <source>same status %1</source>
        <translation>状态相同 %1</translation>
    </message>
    <message>
        <source>status %1 → %2</source>
        <translation>状态 %1 → %2</translation>
    </message>
    <message>
        <source>length ? → %1 bytes (the original body was not logged)</source>
        <translation>长度 ? → %1 字节（原始正文未被记录）</translation>
    </message>
    <message>
        <source>same length (%1 bytes)</source>
        <translation>长度相同（%1 字节）</translation>
    </message>
    <message>
        <source>length %1 → %2 bytes</source>
        <translation>长度 %1 → %2 字节</translation>
    </message>
    <message>
        <source>bodies identical</source>
        <translation>正文相同</translation>
    </message>
    <message>
        <source>(end)</source>
        <translation>（结尾）</translation>
    </message>
    <message>
        <source>first difference at line %1: %2 | %3</source>
        <translation>第 %1 行首次出现差异：%2 | %3</translation>
    </message>
    <message>
        <source>This call&apos;s request body was not logged: start Breakwater with --log-bodies to replay calls.</source>
        <translation>此调用的请求正文未被记录：请使用 --log-bodies 启动 Breakwater 以重放调用。</translation>
    </message>
    <message>
        <source>This record does not say where the call went (it predates the call log&apos;s schema 4).</source>
        <translation>此记录未说明调用的去向（它早于调用日志的第 4 版结构）。</translation>
    </message>
    <message>
        <source>A replay is already running.</source>
        <translation>已有一个重放正在进行。</translation>
    </message>
    <message>
        <source>The base URL must be an http:// or https:// URL.</source>
        <translation>基础 URL 必须是 http:// 或 https:// URL。</translation>
    </message>
    <message>
        <source>no answer within the timeout</source>
        <translation>超时时间内没有响应</translation>
    </message>
    <message>
        <source>timeout</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>stream cut</source>
        <translation>流被截断</translation>
    </message>
    <message>
        <source>unreachable</source>
        <translation>无法连接</translation>
    </message>
    <message>
        <source>invalid answer</source>
        <translation>无效响应</translation>
    </message>
    <message>
        <source>error chunk: %1</source>
        <extracomment>%1 is what the provider said in its stream (&quot;overloaded_error: Overloaded&quot;)</extracomment>
        <translation>错误数据块：%1</translation>
    </message>
    <message>
        <source>error event: %1</source>
        <extracomment>%1 is what the provider said in its stream (&quot;overloaded_error: Overloaded&quot;)</extracomment>
        <translation>错误事件：%1</translation>
    </message>
    <message>
        <source>cool-down of %1 s passed</source>
        <extracomment>A breaker&apos;s transition, shown on hover in the breaker timeline</extracomment>
        <translation>%1 秒冷却期已过</translation>
    </message>
    <message>
        <source>trial request succeeded</source>
        <translation>试探请求成功</translation>
    </message>
    <message>
        <source>trial request failed (%1)</source>
        <extracomment>%1 is why the call failed: &quot;timeout&quot;, &quot;HTTP 503&quot;, ...</extracomment>
        <translation>试探请求失败（%1）</translation>
    </message>
    <message>
        <source>%1 consecutive failures (last: %2)</source>
        <extracomment>%2 is why the last call failed: &quot;timeout&quot;, &quot;HTTP 503&quot;, ...</extracomment>
        <translation>连续 %1 次失败（最近一次：%2）</translation>
    </message>
    <message>
        <source>health probe succeeded</source>
        <translation>健康探测成功</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>cannot begin a batch</source>
        <translation>无法开始一批写入</translation>
    </message>
    <message>
        <source>cannot write a row</source>
        <translation>无法写入一行</translation>
    </message>
    <message>
        <source>cannot commit a batch</source>
        <translation>无法提交一批写入</translation>
    </message>
    <message>
        <source>call log %1: %2</source>
        <extracomment>%1 is the call log&apos;s file, %2 what went wrong</extracomment>
        <translation>调用日志 %1：%2</translation>
    </message>
    <message>
        <source>%1 %2 failed: %3</source>
        <extracomment>%1 %2 is the request (&quot;POST /breakwater/breaker/openai/open&quot;), %3 what went wrong</extracomment>
        <translation>%1 %2 失败：%3</translation>
    </message>
    <message>
        <source>the remote refused the control token: %1</source>
        <extracomment>%1 is the remote&apos;s own explanation (its API&apos;s, in English)</extracomment>
        <translation>远程实例拒绝了控制令牌：%1</translation>
    </message>
    <message>
        <source>the remote answered %1</source>
        <translation>远程实例返回了 %1</translation>
    </message>
    <message>
        <source>the remote ended the stream</source>
        <translation>远程实例结束了事件流</translation>
    </message>
    <message>
        <source>found so on the remote (it changed while this dashboard was away)</source>
        <extracomment>the reason of a breaker transition the attached dashboard did not see happen</extracomment>
        <translation>在远程实例上即为此状态（在此仪表盘断开期间发生了变化）</translation>
    </message>
    <message>
        <source>unknown setting &apos;%1&apos; (live settings: %2)</source>
        <translation>未知设置“%1”（可实时修改的设置：%2）</translation>
    </message>
    <message>
        <source>setting &apos;%1&apos; takes a number or a string</source>
        <translation>设置“%1”只接受数字或字符串</translation>
    </message>
    <message>
        <source>%1; nothing was changed.</source>
        <extracomment>%1 is why the setting was refused</extracomment>
        <translation>%1；未做任何更改。</translation>
    </message>
    <message>
        <source>This Breakwater runs without --shared-state: there is no fleet to arm the rule on.</source>
        <translation>此 Breakwater 未使用 --shared-state 运行：没有可以启用该规则的集群。</translation>
    </message>
    <message>
        <source>The fleet&apos;s Redis is unavailable (shared state degraded); the rule was not armed.</source>
        <translation>集群的 Redis 不可用（共享状态降级）；规则未启用。</translation>
    </message>
</context>
<context>
    <name>OutcomeChart</name>
    <message>
        <source>requests/s, stacked</source>
        <extracomment>the outcomes chart&apos;s left axis, longest first; the chart takes the longest that fits</extracomment>
        <translation>请求/秒，堆叠</translation>
    </message>
    <message>
        <source>refused + failed/s</source>
        <extracomment>the outcomes chart&apos;s right axis (refused and failed calls per second), longest first</extracomment>
        <translation>拒绝 + 失败/秒</translation>
    </message>
    <message>
        <source>refused + failed (right axis, per s)</source>
        <translation>拒绝 + 失败（右轴，每秒）</translation>
    </message>
    <message>
        <source>, %1 injected</source>
        <translation>，%1 个为注入</translation>
    </message>
    <message>
        <source>refused + failed%1 (right axis, per s)</source>
        <translation>拒绝 + 失败%1（右轴，每秒）</translation>
    </message>
    <message>
        <source>in flight</source>
        <translation>进行中</translation>
    </message>
    <message>
        <source>requests/s</source>
        <translation>请求/秒</translation>
    </message>
    <message>
        <source>req/s</source>
        <translation>请求/秒</translation>
    </message>
    <message>
        <source>refused+failed/s</source>
        <translation>拒绝+失败/秒</translation>
    </message>
    <message>
        <source>per s</source>
        <translation>每秒</translation>
    </message>
</context>
<context>
    <name>ProxyPanel</name>
    <message>
        <source>%1 of %2 failures in a row</source>
        <translation>连续失败 %1 / %2 次</translation>
    </message>
    <message>
        <source>%1 of %2 failures</source>
        <translation>失败 %1 / %2 次</translation>
    </message>
    <message>
        <source>%1 failures in a row (opens at %2)</source>
        <translation>连续失败 %1 次（%2 次时断开）</translation>
    </message>
    <message>
        <source>%1 failures in a row</source>
        <translation>连续失败 %1 次</translation>
    </message>
    <message>
        <source>trial in ≤ %1 (sooner if a probe answers)</source>
        <translation>≤ %1 后试探（探测有应答则更早）</translation>
    </message>
    <message>
        <source>trial in ≤ %1</source>
        <translation>≤ %1 后试探</translation>
    </message>
    <message>
        <source>last error %1 at %2</source>
        <translation>最近错误 %1，于 %2</translation>
    </message>
    <message>
        <source>last error at %1</source>
        <translation>最近错误于 %1</translation>
    </message>
    <message>
        <source>no errors</source>
        <translation>无错误</translation>
    </message>
    <message>
        <source>probe %1 (up) at %2, then the trial failed: open again</source>
        <translation>探测 %1（正常）于 %2，随后试探失败：再次断开</translation>
    </message>
    <message>
        <source>probe up at %1, trial failed</source>
        <translation>探测正常于 %1，试探失败</translation>
    </message>
    <message>
        <source>probe %1 (%2) at %3</source>
        <translation>探测 %1（%2）于 %3</translation>
    </message>
    <message>
        <source>up</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>down</source>
        <translation>不可用</translation>
    </message>
    <message>
        <source>probe %1 at %2</source>
        <translation>探测 %1 于 %2</translation>
    </message>
    <message>
        <source>no probe yet</source>
        <translation>尚未探测</translation>
    </message>
    <message>
        <source>Listening on</source>
        <translation>监听于</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy the OpenAI base URL (the Anthropic one is the same without /v1)</source>
        <translation>复制 OpenAI 基础 URL（Anthropic 的相同，只是没有 /v1）</translation>
    </message>
    <message>
        <source>Copy the base URL</source>
        <translation>复制基础 URL</translation>
    </message>
    <message>
        <source>Pause admission</source>
        <translation>暂停准入</translation>
    </message>
    <message>
        <source>Refuse new calls with 503 `paused` (x-should-retry: false); calls in flight go on</source>
        <translation>以 503 `paused` 拒绝新调用（x-should-retry: false）；进行中的调用继续</translation>
    </message>
    <message>
        <source>demo mode: the built-in mock provider stands in for both upstreams</source>
        <translation>演示模式：内置的模拟服务商代替两个上游</translation>
    </message>
    <message>
        <source>demo mode: the mock provider stands in for both</source>
        <translation>演示模式：模拟服务商代替两者</translation>
    </message>
    <message>
        <source>demo mode (mock provider)</source>
        <translation>演示模式（模拟服务商）</translation>
    </message>
    <message>
        <source>Open</source>
        <extracomment>Open the circuit breaker</extracomment>
        <translation>断开</translation>
    </message>
    <message>
        <source>Open the breaker now: refuse calls for one cool-down (the probe waits)</source>
        <translation>立即断开熔断器：在一个冷却期内拒绝调用（探测会等待）</translation>
    </message>
    <message>
        <source>Close</source>
        <extracomment>Close the circuit breaker</extracomment>
        <translation>闭合</translation>
    </message>
    <message>
        <source>Close the breaker now and forget the failures counted</source>
        <translation>立即闭合熔断器并清除已计的失败次数</translation>
    </message>
    <message>
        <source>Probe</source>
        <translation>探测</translation>
    </message>
    <message>
        <source>Ask the provider now whether it is back (half-open if it answers)</source>
        <translation>立即询问服务商是否已恢复（有应答则转为半开）</translation>
    </message>
    <message>
        <source>%1 breaker: %2</source>
        <translation>%1 熔断器：%2</translation>
    </message>
    <message>
        <source>Attached to</source>
        <translation>已连接到</translation>
    </message>
    <message>
        <source>The remote Breakwater this window shows; apps point at %1</source>
        <extracomment>%1 is the remote&apos;s OpenAI base URL, https://host:port/v1</extracomment>
        <translation>此窗口显示的远程 Breakwater；应用指向 %1</translation>
    </message>
    <message>
        <source>remote Breakwater, over TLS</source>
        <translation>远程 Breakwater，经 TLS</translation>
    </message>
    <message>
        <source>remote, TLS</source>
        <translation>远程，TLS</translation>
    </message>
    <message>
        <source>TLS</source>
        <translation>TLS</translation>
    </message>
    <message>
        <source>remote Breakwater, cleartext on loopback</source>
        <translation>远程 Breakwater，本机回环明文</translation>
    </message>
    <message>
        <source>remote, loopback</source>
        <translation>远程，回环</translation>
    </message>
    <message>
        <source>loopback</source>
        <translation>回环</translation>
    </message>
    <message>
        <source>cleartext: the control token and the calls cross the network unencrypted</source>
        <translation>明文：控制令牌和调用以未加密方式经过网络</translation>
    </message>
    <message>
        <source>cleartext: the token crosses the network unencrypted</source>
        <translation>明文：令牌以未加密方式经过网络</translation>
    </message>
    <message>
        <source>cleartext (no TLS)</source>
        <translation>明文（无 TLS）</translation>
    </message>
    <message>
        <source>(URL unknown)</source>
        <translation>（URL 未知）</translation>
    </message>
    <message>
        <source>Resume admission</source>
        <translation>恢复准入</translation>
    </message>
</context>
<context>
    <name>ReplayDialog</name>
    <message>
        <source>from the environment: $%1 (not set)</source>
        <translation>来自环境变量：$%1（未设置）</translation>
    </message>
    <message>
        <source>from the environment: $%1 (found)</source>
        <translation>来自环境变量：$%1（已找到）</translation>
    </message>
    <message>
        <source>from the environment: $%1 (only for %2, which this replay does not reach)</source>
        <extracomment>%1 is a variable name, %2 the provider&apos;s host (api.openai.com)</extracomment>
        <translation>来自环境变量：$%1（仅用于 %2，本次重放不会访问它）</translation>
    </message>
    <message>
        <source>Replay %1</source>
        <translation>重放 %1</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1 %2&lt;/b&gt; → %3, recorded status %4</source>
        <translation>&lt;b&gt;%1 %2&lt;/b&gt; → %3，记录的状态 %4</translation>
    </message>
    <message>
        <source>Send to</source>
        <translation>发送至</translation>
    </message>
    <message>
        <source>another base URL:</source>
        <translation>其他 base URL：</translation>
    </message>
    <message>
        <source>Straight there, not through Breakwater: a local model, the other upstream</source>
        <translation>直接发送，不经过 Breakwater：本地模型或另一个上游</translation>
    </message>
    <message>
        <source>Credential (never stored)</source>
        <translation>凭据（从不保存）</translation>
    </message>
    <message>
        <source>typed:</source>
        <translation>手动输入：</translation>
    </message>
    <message>
        <source>none (a local model that needs no key)</source>
        <translation>无（不需要密钥的本地模型）</translation>
    </message>
    <message>
        <source>Request body (edit it to send something else):</source>
        <translation>请求正文（可编辑后发送其他内容）：</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Send to see the answer here.</source>
        <translation>发送后在此查看响应。</translation>
    </message>
    <message>
        <source>Recorded answer</source>
        <translation>记录的响应</translation>
    </message>
    <message>
        <source>Replayed answer</source>
        <translation>重放的响应</translation>
    </message>
    <message>
        <source>status %1</source>
        <translation>状态 %1</translation>
    </message>
    <message>
        <source>upstream error body:</source>
        <translation>上游错误正文：</translation>
    </message>
    <message>
        <source>(the answer&apos;s body was not logged)</source>
        <translation>（响应正文未记录）</translation>
    </message>
    <message>
        <source>Breakwater itself (%1, with Cache-Control: no-cache: a fresh upstream call)</source>
        <translation>Breakwater 本身（%1，带 Cache-Control: no-cache：一次新的上游调用）</translation>
    </message>
    <message>
        <source>(the edited body is not valid JSON: sent as typed)</source>
        <translation>（编辑后的正文不是有效的 JSON：按输入原样发送）</translation>
    </message>
    <message>
        <source>Sending to %1…</source>
        <translation>正在发送至 %1…</translation>
    </message>
    <message>
        <source>no answer: %1</source>
        <translation>无响应：%1</translation>
    </message>
    <message>
        <source>No answer from %1: %2</source>
        <translation>%1 无响应：%2</translation>
    </message>
    <message>
        <source>status %1 in %2 ms</source>
        <translation>状态 %1，用时 %2 毫秒</translation>
    </message>
    <message>
        <source>(then: %1)</source>
        <translation>（随后：%1）</translation>
    </message>
    <message>
        <source>Answered %1 by %2.</source>
        <translation>%2 响应了 %1。</translation>
    </message>
    <message>
        <source>… (cut here: the answer was longer than the replay keeps)</source>
        <translation>…（在此截断：响应超出了重放保留的长度）</translation>
    </message>
    <message>
        <source>sent to %1</source>
        <translation>发送至 %1</translation>
    </message>
    <message>
        <source>Difference: %1</source>
        <translation>差异：%1</translation>
    </message>
</context>
<context>
    <name>RequestPanel</name>
    <message>
        <source>all members</source>
        <translation>所有成员</translation>
    </message>
    <message>
        <source>fallback</source>
        <extracomment>%1 the upstream&apos;s refusal (&quot;529&quot;, &quot;upstream_unreachable&quot;), %2 the upstream, %3 its fallback</extracomment>
        <translation>备用</translation>
    </message>
    <message>
        <source>from %1 (it refused the call; its fallback %2 answered)</source>
        <translation>来自 %1（它拒绝了该调用；由其备用上游 %2 应答）</translation>
    </message>
    <message>
        <source>%1 from %2 → answered by its fallback %3 (the row with this request id)</source>
        <translation>%2 返回 %1 → 由其回退 %3 应答（请求 ID 相同的那一行）</translation>
    </message>
    <message>
        <source>key inputs (what made the dedup key)</source>
        <translation>键的输入（去重键由此生成）</translation>
    </message>
    <message>
        <source>verdict: %1
events: %2
</source>
        <extracomment>The stream&apos;s verdict is the wire&apos;s word (&quot;complete&quot;, &quot;cut&quot;); %2 the number of events</extracomment>
        <translation>判定：%1
事件数：%2
</translation>
    </message>
    <message>
        <source>time to first token: %1
</source>
        <translation>首个 token 用时：%1
</translation>
    </message>
    <message>
        <source>no content came</source>
        <translation>未收到内容</translation>
    </message>
    <message>
        <source>largest gap between events: %1
</source>
        <translation>事件间最大间隔：%1
</translation>
    </message>
    <message>
        <source>stream</source>
        <translation>流</translation>
    </message>
    <message>
        <source>request headers</source>
        <translation>请求头</translation>
    </message>
    <message>
        <source>response headers</source>
        <translation>响应头</translation>
    </message>
    <message>
        <source>upstream error body</source>
        <translation>上游错误正文</translation>
    </message>
    <message>
        <source>all outcomes</source>
        <translation>全部结果</translation>
    </message>
    <message>
        <source>all models</source>
        <translation>全部模型</translation>
    </message>
    <message>
        <source>all statuses</source>
        <translation>全部状态</translation>
    </message>
    <message>
        <source>Filter:</source>
        <translation>筛选：</translation>
    </message>
    <message>
        <source>failed only</source>
        <translation>仅失败</translation>
    </message>
    <message>
        <source>Only calls that were served but did not end well (upstream errors, timeouts, ...)</source>
        <translation>仅显示已处理但未正常结束的调用（上游错误、超时等）</translation>
    </message>
    <message>
        <source>clear</source>
        <translation>清除</translation>
    </message>
    <message>
        <source>Show the calls of every time again</source>
        <translation>重新显示所有时间的调用</translation>
    </message>
    <message>
        <source>Select a request to see its timings, key, outcome, tokens and cost.</source>
        <translation>选择一个请求，查看其耗时、键、结果、token 和费用。</translation>
    </message>
    <message>
        <source>Copy as curl</source>
        <translation>复制为 curl</translation>
    </message>
    <message>
        <source>Copy the selected call as a curl command against Breakwater (credentials as variables)</source>
        <translation>将所选调用复制为发往 Breakwater 的 curl 命令（凭据以变量表示）</translation>
    </message>
    <message>
        <source>Export HAR…</source>
        <translation>导出 HAR…</translation>
    </message>
    <message>
        <source>Save the selected calls, or all shown, as HAR 1.2 for a browser&apos;s devtools</source>
        <translation>将所选调用（或全部显示的调用）保存为 HAR 1.2，供浏览器开发者工具使用</translation>
    </message>
    <message>
        <source>Replay…</source>
        <translation>重放…</translation>
    </message>
    <message>
        <source>Send the selected call again, through Breakwater or to another URL, and compare the answers</source>
        <translation>重新发送所选调用（经由 Breakwater 或发往其他 URL），并比较响应</translation>
    </message>
    <message>
        <source>Filtered to calls received %1–%2</source>
        <translation>已筛选为 %1–%2 收到的调用</translation>
    </message>
    <message>
        <source>Copied as curl</source>
        <translation>已复制为 curl</translation>
    </message>
    <message>
        <source>Copied. Set the credential&apos;s variable (OPENAI_API_KEY, ANTHROPIC_API_KEY) before running it.</source>
        <translation>已复制。运行前请先设置凭据变量（OPENAI_API_KEY、ANTHROPIC_API_KEY）。</translation>
    </message>
    <message>
        <source>%1 saved to %2</source>
        <translation>%1 已保存到 %2</translation>
    </message>
    <message>
        <source>call</source>
        <translation>个调用</translation>
    </message>
    <message>
        <source>calls</source>
        <translation>个调用</translation>
    </message>
    <message>
        <source>Export the %1 selected as HAR</source>
        <translation>将所选的 %1 导出为 HAR</translation>
    </message>
    <message>
        <source>Export all %1 shown as HAR</source>
        <translation>将显示的全部 %1 导出为 HAR</translation>
    </message>
    <message>
        <source>HAR files (*.har)</source>
        <translation>HAR 文件 (*.har)</translation>
    </message>
    <message>
        <source>Export HAR</source>
        <translation>导出 HAR</translation>
    </message>
    <message>
        <source>The calls were not saved: %1.</source>
        <translation>调用未保存：%1。</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>request id</source>
        <translation>请求 ID</translation>
    </message>
    <message>
        <source>outcome</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>ended</source>
        <translation>结束</translation>
    </message>
    <message>
        <source>status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>route</source>
        <translation>路由</translation>
    </message>
    <message>
        <source>model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>(stream)</source>
        <translation>（流式）</translation>
    </message>
    <message>
        <source>client</source>
        <translation>客户端</translation>
    </message>
    <message>
        <source>key fingerprint</source>
        <translation>键指纹</translation>
    </message>
    <message>
        <source>credential</source>
        <translation>凭据</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>fingerprint %1 (never the credential)</source>
        <translation>指纹 %1（绝不记录凭据本身）</translation>
    </message>
    <message>
        <source>breaker at admission</source>
        <translation>准入时熔断器</translation>
    </message>
    <message>
        <source>injected</source>
        <translation>注入</translation>
    </message>
    <message>
        <source>(fault injected by Breakwater, not the provider&apos;s)</source>
        <translation>（由 Breakwater 注入的故障，并非服务商的）</translation>
    </message>
    <message>
        <source>attempt</source>
        <translation>尝试</translation>
    </message>
    <message>
        <source>(X-Stainless-Retry-Count %1)</source>
        <translation>（X-Stainless-Retry-Count %1）</translation>
    </message>
    <message>
        <source>timings</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>arrived</source>
        <translation>到达</translation>
    </message>
    <message>
        <source>queue wait</source>
        <translation>排队等待</translation>
    </message>
    <message>
        <source>upstream start</source>
        <translation>上游开始</translation>
    </message>
    <message>
        <source>first byte</source>
        <translation>首字节</translation>
    </message>
    <message>
        <source>last byte</source>
        <translation>末字节</translation>
    </message>
    <message>
        <source>total</source>
        <translation>总计</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>token</translation>
    </message>
    <message>
        <source>in %1, out %2, cached %3</source>
        <translation>输入 %1，输出 %2，缓存 %3</translation>
    </message>
    <message>
        <source>cost</source>
        <translation>费用</translation>
    </message>
    <message>
        <source>cost saved</source>
        <translation>节省费用</translation>
    </message>
    <message>
        <source>bodies</source>
        <translation>正文</translation>
    </message>
    <message>
        <source>not logged</source>
        <translation>未记录</translation>
    </message>
    <message>
        <source>request body</source>
        <translation>请求正文</translation>
    </message>
    <message>
        <source>response body</source>
        <translation>响应正文</translation>
    </message>
</context>
<context>
    <name>RequestTableModel</name>
    <message>
        <source>from %1</source>
        <translation>来自 %1</translation>
    </message>
    <message>
        <source>to %1</source>
        <translation>转到 %1</translation>
    </message>
    <message>
        <source>fallback</source>
        <translation>回退</translation>
    </message>
    <message>
        <source>injected</source>
        <translation>注入</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <extracomment>A retry&apos;s place in its group: &quot;2 of 3&quot;</extracomment>
        <translation>%1/%2</translation>
    </message>
    <message>
        <source>arrival</source>
        <translation>到达</translation>
    </message>
    <message>
        <source>outcome</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>ended</source>
        <translation>结束</translation>
    </message>
    <message>
        <source>upstream</source>
        <translation>上游</translation>
    </message>
    <message>
        <source>model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>route</source>
        <translation>路由</translation>
    </message>
    <message>
        <source>total ms</source>
        <translation>总耗时 ms</translation>
    </message>
    <message>
        <source>queue ms</source>
        <translation>排队 ms</translation>
    </message>
    <message>
        <source>upstream ms</source>
        <translation>上游 ms</translation>
    </message>
    <message>
        <source>tokens in/out</source>
        <translation>token 输入/输出</translation>
    </message>
    <message>
        <source>cost</source>
        <translation>费用</translation>
    </message>
    <message>
        <source>key</source>
        <translation>键</translation>
    </message>
    <message>
        <source>request id</source>
        <translation>请求 ID</translation>
    </message>
    <message>
        <source>attempt</source>
        <translation>尝试</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>In use now</source>
        <translation>当前使用</translation>
    </message>
    <message>
        <source>OpenAI %1, Anthropic %2: the demo&apos;s mock provider; the fields above apply when Breakwater runs without --demo</source>
        <translation>OpenAI %1、Anthropic %2：演示用的模拟服务商；以上字段在 Breakwater 不带 --demo 运行时生效</translation>
    </message>
    <message>
        <source>Settings of %1</source>
        <extracomment>%1 is the remote Breakwater&apos;s address, https://host:port</extracomment>
        <translation>%1 的设置</translation>
    </message>
    <message>
        <source>The remote&apos;s own: set where it runs (its command line or configuration file)</source>
        <translation>远程实例自己的设置：在其运行处设置（命令行或配置文件）</translation>
    </message>
    <message>
        <source>The live settings of the remote Breakwater at %1. OK sends the ones you changed to it through its control API, with its owner&apos;s control token; a change lasts until the remote restarts. Its listen address and upstreams are set where it runs.</source>
        <translation>%1 上远程 Breakwater 的实时设置。点击“确定”会通过其控制 API、使用其所有者的控制令牌，把你更改的设置发送给它；更改持续到远程实例重启。其监听地址和上游在其运行处设置。</translation>
    </message>
    <message>
        <source>s</source>
        <comment>seconds</comment>
        <translation>秒</translation>
    </message>
    <message>
        <source>listen address</source>
        <translation>监听地址</translation>
    </message>
    <message>
        <source>OpenAI upstream</source>
        <translation>OpenAI 上游</translation>
    </message>
    <message>
        <source>Anthropic upstream</source>
        <translation>Anthropic 上游</translation>
    </message>
    <message>
        <source>timeout</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>concurrency</source>
        <translation>并发数</translation>
    </message>
    <message>
        <source>de-dup window</source>
        <translation>去重窗口</translation>
    </message>
    <message>
        <source>cache size</source>
        <translation>缓存大小</translation>
    </message>
    <message>
        <source>breaker failures</source>
        <translation>熔断失败次数</translation>
    </message>
    <message>
        <source>breaker cool-down</source>
        <translation>熔断冷却</translation>
    </message>
    <message>
        <source>spend limit</source>
        <translation>花费上限</translation>
    </message>
    <message>
        <source>Breakwater settings</source>
        <translation>Breakwater 设置</translation>
    </message>
    <message>
        <source>calls per upstream</source>
        <translation>个调用/每个上游</translation>
    </message>
    <message>
        <source>0 s (only join calls in flight)</source>
        <translation>0 秒（仅合并进行中的调用）</translation>
    </message>
    <message>
        <source>failures in a row</source>
        <translation>次连续失败</translation>
    </message>
    <message>
        <source>per day</source>
        <translation>每天</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>无上限</translation>
    </message>
    <message>
        <source>Listen address</source>
        <translation>监听地址</translation>
    </message>
    <message>
        <source>Timeout (first byte, stream gaps)</source>
        <translation>超时（首字节、流间隔）</translation>
    </message>
    <message>
        <source>Concurrency</source>
        <translation>并发数</translation>
    </message>
    <message>
        <source>De-dup window</source>
        <translation>去重窗口</translation>
    </message>
    <message>
        <source>Answer cache size</source>
        <translation>响应缓存大小</translation>
    </message>
    <message>
        <source>Breaker opens after</source>
        <translation>熔断器打开条件</translation>
    </message>
    <message>
        <source>Breaker cool-down</source>
        <translation>熔断冷却</translation>
    </message>
    <message>
        <source>Spend limit</source>
        <translation>花费上限</translation>
    </message>
    <message>
        <source>Start Breakwater when I log in (in the tray)</source>
        <translation>登录时启动 Breakwater（在托盘中）</translation>
    </message>
    <message>
        <source>Given on the command line this run (they win over saved values): %1.</source>
        <translation>本次运行由命令行指定（优先于已保存的值）：%1。</translation>
    </message>
    <message>
        <source>Demo mode: both upstreams are the built-in mock provider while it runs.</source>
        <translation>演示模式：运行期间两个上游都是内置的模拟服务商。</translation>
    </message>
    <message>
        <source>Applied to the running proxy at once when you press OK: timeout, concurrency, de-dup window, cache size, the breaker&apos;s failures and cool-down, and the spend limit. The listen address and the upstreams take effect after a restart. Starting at login applies at once.</source>
        <translation>按“确定”后立即应用到运行中的代理：超时、并发数、去重窗口、缓存大小、熔断器的失败次数和冷却时间，以及花费上限。监听地址和上游在重启后生效。登录时启动立即生效。</translation>
    </message>
    <message>
        <source>Settings saved. Nothing the running proxy uses has changed.</source>
        <translation>设置已保存。运行中的代理所用的设置没有变化。</translation>
    </message>
    <message>
        <source>Settings saved.</source>
        <translation>设置已保存。</translation>
    </message>
    <message>
        <source>Settings saved. Restart Breakwater to apply: %1. The running proxy keeps its current settings until then.</source>
        <translation>设置已保存。重启 Breakwater 后应用：%1。在此之前，运行中的代理保持当前设置。</translation>
    </message>
    <message>
        <source>Applied to the running proxy now: %1.</source>
        <translation>已立即应用到运行中的代理：%1。</translation>
    </message>
    <message>
        <source>Given on the command line, so they win over the saved values: %1.</source>
        <translation>由命令行指定，因此优先于已保存的值：%1。</translation>
    </message>
    <message>
        <source>Starting at login could not be changed: %1.</source>
        <translation>无法更改登录时启动：%1。</translation>
    </message>
    <message>
        <source>Breakwater will start in the tray when you log in.</source>
        <translation>登录时 Breakwater 将在托盘中启动。</translation>
    </message>
    <message>
        <source>Breakwater will no longer start when you log in.</source>
        <translation>登录时 Breakwater 将不再启动。</translation>
    </message>
</context>
<context>
    <name>TrayController</name>
    <message>
        <source>Breakwater</source>
        <translation>Breakwater</translation>
    </message>
    <message>
        <source>The dashboard, each upstream&apos;s breaker, admission, the base URLs, fault injection and quitting</source>
        <translation>仪表盘、各上游的熔断器、准入、基础 URL、故障注入和退出</translation>
    </message>
    <message>
        <source>Open dashboard</source>
        <translation>打开仪表盘</translation>
    </message>
    <message>
        <source>Pause admission</source>
        <translation>暂停准入</translation>
    </message>
    <message>
        <source>Refuse new calls with 503 `paused`; calls in flight go on</source>
        <translation>以 503 `paused` 拒绝新调用；进行中的调用继续</translation>
    </message>
    <message>
        <source>Copy OpenAI base URL</source>
        <translation>复制 OpenAI 基础 URL</translation>
    </message>
    <message>
        <source>Copy Anthropic base URL</source>
        <translation>复制 Anthropic 基础 URL</translation>
    </message>
    <message>
        <source>Copy export lines</source>
        <translation>复制 export 命令行</translation>
    </message>
    <message>
        <source>Fault injection</source>
        <translation>故障注入</translation>
    </message>
    <message>
        <source>Demo scenarios</source>
        <translation>演示场景</translation>
    </message>
    <message>
        <source>Quit Breakwater</source>
        <translation>退出 Breakwater</translation>
    </message>
    <message>
        <source>%1 is still running</source>
        <translation>%1 仍在运行</translation>
    </message>
    <message>
        <source>Apps pointed at %1 keep working. Open the dashboard or quit from this icon&apos;s menu.</source>
        <translation>指向 %1 的应用仍可正常工作。可从此图标的菜单打开仪表盘或退出。</translation>
    </message>
    <message>
        <source>
ADMISSION PAUSED: new calls get 503</source>
        <translation>
准入已暂停：新调用收到 503</translation>
    </message>
    <message>
        <source>%1%2
%3
%4, %5, %6 joined, %7
%8 refused, %9 failed
in flight %10, queued %11
breakers: %12%13%14%15</source>
        <translation>%1%2
%3
%4，%5，%6 合并请求，%7
%8 拒绝，%9 失败
进行中 %10，排队 %11
熔断器：%12%13%14%15</translation>
    </message>
    <message>
        <source> (demo)</source>
        <translation>（演示）</translation>
    </message>
    <message>
        <source>request</source>
        <translation>个请求</translation>
    </message>
    <message>
        <source>requests</source>
        <translation>个请求</translation>
    </message>
    <message>
        <source>upstream call</source>
        <translation>次上游调用</translation>
    </message>
    <message>
        <source>upstream calls</source>
        <translation>次上游调用</translation>
    </message>
    <message>
        <source>cache hit</source>
        <translation>次缓存命中</translation>
    </message>
    <message>
        <source>cache hits</source>
        <translation>次缓存命中</translation>
    </message>
    <message>
        <source>
FAULT INJECTION ARMED: </source>
        <translation>
故障注入已启用：</translation>
    </message>
    <message>
        <source>Resume admission</source>
        <translation>恢复准入</translation>
    </message>
    <message>
        <source>%1: breaker %2</source>
        <translation>%1：熔断器%2</translation>
    </message>
    <message>
        <source>%1 breaker open</source>
        <translation>%1 熔断器断开</translation>
    </message>
    <message>
        <source>%1 stopped calling %2: %3</source>
        <translation>%1 已停止调用 %2：%3</translation>
    </message>
    <message>
        <source>%1 breaker closed</source>
        <translation>%1 熔断器闭合</translation>
    </message>
    <message>
        <source>%1 calls %2 again: %3</source>
        <translation>%1 恢复调用 %2：%3</translation>
    </message>
    <message>
        <source>Spend limit reached</source>
        <translation>已达到花费上限</translation>
    </message>
    <message>
        <source>%1 is refusing calls that would pass today&apos;s spend limit.</source>
        <translation>%1 正在拒绝会超出今日花费上限的调用。</translation>
    </message>
</context>
<context>
    <name>dashboardstyle</name>
    <message>
        <source>upstream error</source>
        <translation>上游错误</translation>
    </message>
    <message>
        <source>error event</source>
        <translation>错误事件</translation>
    </message>
    <message>
        <source>timeout</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>unreachable</source>
        <translation>无法连接</translation>
    </message>
    <message>
        <source>cut stream</source>
        <translation>流被截断</translation>
    </message>
    <message>
        <source>client closed</source>
        <translation>客户端断开</translation>
    </message>
    <message>
        <source>closed</source>
        <translation>闭合</translation>
    </message>
    <message>
        <source>half-open</source>
        <extracomment>A circuit breaker&apos;s state: one trial call is let through</extracomment>
        <translation>半开</translation>
    </message>
    <message>
        <source>open</source>
        <translation>断开</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
</context>
<context>
    <name>faultcontrol</name>
    <message>
        <source>503 storm 60 s</source>
        <translation>503 风暴 60 秒</translation>
    </message>
    <message>
        <source>529 overloaded 60 s (Anthropic)</source>
        <translation>529 过载 60 秒（Anthropic）</translation>
    </message>
    <message>
        <source>Hang 30 s</source>
        <translation>挂起 30 秒</translation>
    </message>
    <message>
        <source>Cut streams 60 s</source>
        <translation>截断流 60 秒</translation>
    </message>
    <message>
        <source>Slow streams 60 s</source>
        <translation>慢速流 60 秒</translation>
    </message>
    <message>
        <source>Clear all faults</source>
        <translation>清除所有故障</translation>
    </message>
    <message>
        <source>(%1 s left)</source>
        <translation>（剩余 %1 秒）</translation>
    </message>
</context>
</TS>
