var H=`
.al-lab { --al-bg: var(--jp-layout-color0, #fff); --al-fg: var(--jp-ui-font-color0, #111);
  --al-fg1: var(--jp-ui-font-color1, #222); --al-fg2: var(--jp-ui-font-color2, #555);
  --al-line: var(--jp-border-color1, #bdbdbd); --al-accent: var(--jp-brand-color1, #1976d2);
  --al-error: var(--jp-error-color1, #c62828);
  font-family: var(--jp-ui-font-family, system-ui, sans-serif); font-size: 13px; color: var(--al-fg1);
  display: flex; flex-direction: column; gap: 6px; max-width: 100%; }
.al-lab button { font: inherit; font-size: 12px; color: var(--al-fg1); background: var(--jp-layout-color2, #eee);
  border: 1px solid var(--al-line); border-radius: 3px; padding: 1px 8px; cursor: pointer; }
.al-lab button:disabled { opacity: 0.45; cursor: default; }
.al-bar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
.al-direction { color: var(--al-fg2); font-size: 12px; flex: 1 1 320px; }
.al-zoom { display: flex; gap: 4px; align-items: center; }
.al-zoom .al-scale { color: var(--al-fg2); font-size: 12px; min-width: 3.2em; text-align: right; }
.al-row { display: flex; flex-wrap: wrap; gap: 10px; align-items: flex-start; }
.al-graph { flex: 0 1 auto; max-width: 100%; overflow: auto; border: 1px solid var(--al-line); border-radius: 4px;
  background: var(--al-bg); box-sizing: border-box; cursor: grab; }
.al-graph.al-panning { cursor: grabbing; user-select: none; }
.al-graph svg { display: block; }
.al-graph g.node { cursor: pointer; }
.al-graph g.node.al-selected > rect { stroke: var(--al-accent); stroke-width: 3px; }
.al-details { flex: 1 1 260px; min-width: 240px; max-width: 460px; border-left: 3px solid var(--al-accent);
  padding: 2px 8px; color: var(--al-fg1); }
.al-details:empty { display: none; }
.al-details .al-close { float: right; padding: 0 6px; }
.al-details h4 { margin: 2px 0 4px 0; font-size: 13px; color: var(--al-fg); }
.al-details table { border-collapse: collapse; font-size: 12px; }
.al-details td:first-child { white-space: nowrap; color: var(--al-fg2); }
.al-details td { padding: 1px 6px 1px 0; vertical-align: top; font-family: var(--jp-code-font-family, ui-monospace, monospace);
  overflow-wrap: anywhere; }
.al-stale { color: var(--al-error); font-weight: 600; }
.al-message { color: var(--al-error); }
.al-controls { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
.al-controls input[type=range] { flex: 1 1 160px; max-width: 320px; }
.al-caption { font-family: var(--jp-code-font-family, ui-monospace, monospace); font-size: 12px; color: var(--al-fg1);
  overflow-wrap: anywhere; }
.al-more { display: flex; flex-wrap: wrap; gap: 4px 18px; font-size: 12px; color: var(--al-fg2); }
.al-more summary { cursor: pointer; }
.al-more pre { margin: 4px 0; font-size: 12px; color: var(--al-fg1); max-height: 320px; overflow: auto; }
.al-legend-items { display: flex; flex-wrap: wrap; gap: 2px 14px; margin-top: 4px; color: var(--al-fg1); }
.al-swatch { display: inline-block; width: 16px; height: 10px; margin-right: 5px; vertical-align: -1px;
  border: 1px solid var(--al-line); border-radius: 2px; }
.al-error-box { color: var(--al-error); font-family: ui-monospace, monospace; white-space: pre-wrap; }
@supports (color: color-mix(in srgb, red 50%, blue)) {
  .al-lab { --al-op: color-mix(in srgb, #4f8fd1 24%, var(--al-bg)); --al-op-line: color-mix(in srgb, #4f8fd1 75%, var(--al-fg));
    --al-leaf: color-mix(in srgb, #5cae55 24%, var(--al-bg)); --al-leaf-line: color-mix(in srgb, #5cae55 75%, var(--al-fg));
    --al-tensor: color-mix(in srgb, #f2c12e 30%, var(--al-bg)); --al-tensor-line: color-mix(in srgb, #c2a23c 80%, var(--al-fg));
    --al-fold: color-mix(in srgb, #9575cd 22%, var(--al-bg)); --al-fold-line: color-mix(in srgb, #9575cd 80%, var(--al-fg));
    --al-done: color-mix(in srgb, var(--al-fg) 9%, var(--al-bg)); --al-muted: color-mix(in srgb, var(--al-fg) 45%, var(--al-bg));
    --al-green: color-mix(in srgb, #2e7d32 60%, var(--al-fg)); --al-blue: color-mix(in srgb, #1e6ad6 70%, var(--al-fg));
    --al-purple: color-mix(in srgb, #8e24aa 65%, var(--al-fg)); --al-red: color-mix(in srgb, #e53935 80%, var(--al-fg));
    --al-orange: color-mix(in srgb, #f57c00 85%, var(--al-fg)); --al-olive: color-mix(in srgb, #a08a2e 75%, var(--al-fg)); }
  .al-graph svg .al-bg { fill: var(--al-bg); }
  .al-graph svg .al-op > rect, .al-sw-op { fill: var(--al-op); background: var(--al-op); stroke: var(--al-op-line); border-color: var(--al-op-line); }
  .al-graph svg .al-leaf > rect, .al-sw-leaf { fill: var(--al-leaf); background: var(--al-leaf); stroke: var(--al-leaf-line); border-color: var(--al-leaf-line); }
  .al-graph svg .al-tensor > rect, .al-sw-tensor { fill: var(--al-tensor); background: var(--al-tensor); stroke: var(--al-tensor-line); border-color: var(--al-tensor-line); border-radius: 5px; }
  .al-graph svg .al-fold > rect, .al-sw-fold { fill: var(--al-fold); background: var(--al-fold); stroke: var(--al-fold-line); border-color: var(--al-fold-line); }
  .al-graph svg .al-done > rect, .al-graph svg .al-freed > rect, .al-graph svg .al-off > rect, .al-sw-done, .al-sw-freed, .al-sw-off {
    fill: var(--al-done); background: var(--al-done); stroke: var(--al-muted); border-color: var(--al-muted); }
  .al-sw-freed { border-style: dashed; } .al-sw-off { border-style: dotted; }
  .al-graph svg .al-stale > rect { stroke: var(--al-red); }
  .al-graph svg .al-current > rect, .al-sw-current { stroke: var(--al-orange); border: 3px solid var(--al-orange); }
  .al-graph svg text { fill: var(--al-fg1); }
  .al-graph svg text.al-title { fill: var(--al-fg); }
  .al-graph svg text.al-kind, .al-graph svg text.al-grad { fill: var(--al-green); }
  .al-graph svg text.al-step { fill: var(--al-blue); }
  .al-graph svg text.al-hook { fill: var(--al-purple); }
  .al-graph svg text.al-meta { fill: var(--al-fg2); }
  .al-graph svg text.al-freed { fill: var(--al-muted); }
  .al-graph svg text.al-stale, .al-sw-stale { fill: var(--al-red); color: var(--al-red); }
  .al-graph svg .al-edge path { stroke: var(--al-fg2); } .al-graph svg .al-edge polygon { fill: var(--al-fg2); }
  .al-graph svg .al-grad_fn path { stroke: var(--al-olive); } .al-graph svg .al-grad_fn polygon { fill: var(--al-olive); }
  .al-graph svg .al-const path { stroke: var(--al-muted); } .al-graph svg .al-const polygon { fill: var(--al-muted); }
  .al-graph svg .al-view path { stroke: var(--al-purple); } .al-graph svg .al-view polygon { fill: var(--al-purple); }
  .al-graph svg .al-step path { stroke: var(--al-blue); } .al-graph svg .al-step polygon { fill: var(--al-blue); }
  .al-graph svg text.al-label { fill: var(--al-fg1); stroke: var(--al-bg); }
  .al-graph svg text.al-step-label { fill: var(--al-blue); font-weight: bold; }
  .al-graph svg text.al-view { fill: var(--al-purple); }
  .al-graph svg .al-cluster rect { fill: color-mix(in srgb, #9575cd 10%, var(--al-bg)); stroke: var(--al-fold-line); }
  .al-graph svg .al-cluster text { fill: var(--al-purple); }
  .al-sw-view { border: none; border-top: 2px dashed var(--al-purple); height: 0; }
  .al-sw-const { border: none; border-top: 2px dotted var(--al-muted); height: 0; }
}
`,V=typeof CSS<"u"&&CSS.supports("color","color-mix(in srgb, red 50%, blue)"),N={op:"#dbe9f6",leaf:"#dcefd9",tensor:"#fff2bf",fold:"#ece6f6",done:"#e6e6e6",freed:"#eeeeee",off:"#f4f4f4"};function o(e,t,a){let r=document.createElement(e);return t&&(r.className=t),a!==void 0&&(r.textContent=a),r}function F(e){let t=new DOMParser().parseFromString(e,"image/svg+xml"),a=t.documentElement;if(!a||a.nodeName!=="svg"||t.querySelector("parsererror"))throw new Error("not an SVG drawing");for(let r of a.querySelectorAll("script, foreignObject, iframe, a"))r.remove();for(let r of[a,...a.querySelectorAll("*")])for(let l of[...r.attributes])(/^on/i.test(l.name)||/href$/i.test(l.name))&&r.removeAttribute(l.name);return document.importNode(a,!0)}function _(e,t,a){if(e.replaceChildren(),!t||!t.title)return;let r=o("button","al-close","\xD7");r.title="Close the details",r.addEventListener("click",a),e.append(r,o("h4","",t.title));for(let l of t.sections||[]){l.title&&e.appendChild(o("div",l.stale?"al-stale":"",l.title));let s=o("table");for(let[p,u]of l.rows||[]){let i=o("tr");i.appendChild(o("td","",String(p))),i.appendChild(o("td",l.stale?"al-stale":"",String(u))),s.appendChild(i)}e.appendChild(s)}}function P(e,t){e.replaceChildren();for(let[a,r]of t||[]){let l=o("span","al-legend-item"),s=o("span",`al-swatch al-sw-${a}`,a==="stale"?"\u26A0":"");a==="stale"?Object.assign(s.style,{border:"none",width:"auto",height:"auto"}):N[a]&&!V&&(s.style.background=N[a]),l.append(s,document.createTextNode(r)),e.appendChild(l)}}function X(e,t){let a={},r=null;for(let[i,d]of[["reset","Reset"],["back","\u25C0 Back"],["play","\u25B6 Play"],["next","Next \u25B6"]]){let v=o("button",`al-${i}`,d);v.addEventListener("click",()=>p(i)),a[i]=v,t.appendChild(v)}let l=o("input","al-slider");l.type="range",l.min="0",l.setAttribute("aria-label","backward step"),l.addEventListener("change",()=>e.send({action:"seek",index:Number(l.value)})),t.appendChild(l);function s(){r!==null&&clearInterval(r),r=null,a.play.textContent="\u25B6 Play"}function p(i){if(i==="play"){if(r!==null)return s();a.play.textContent="\u23F8 Pause",r=setInterval(()=>{let d=e.get("stepper")||{};if(d.index>=d.total)return s();e.send({action:"next"})},Number((e.get("stepper")||{}).interval_ms||700));return}i==="reset"&&s(),e.send({action:i})}function u(i){l.max=String(i.total||0),l.value=String(i.index||0),a.next.disabled=!i.enabled||i.index>=i.total,a.back.disabled=!i.enabled||i.index<=0,i.index>=i.total&&s()}return{update:u,stop:s}}function Y(e,t){let a={svg:null,width:0,height:0,scale:1,userScaled:!1};function r(){return Math.max(260,Math.min(window.innerHeight*.75,900))}function l(){let n=Math.max(120,t.clientWidth-4);return Math.min(1,n/a.width,r()/a.height)}function s(){a.svg&&(a.svg.setAttribute("width",String(Math.round(a.width*a.scale))),a.svg.setAttribute("height",String(Math.round(a.height*a.scale))),e.style.maxHeight=`${Math.round(r())}px`,t.dataset.scale=a.scale.toFixed(3),a.onScale&&a.onScale(a.scale))}function p(n,g){let h=a.scale;a.scale=Math.min(4,Math.max(.05,n)),a.userScaled=g;let b=e.scrollLeft+e.clientWidth/2,m=e.scrollTop+e.clientHeight/2;s(),e.scrollLeft=b*a.scale/h-e.clientWidth/2,e.scrollTop=m*a.scale/h-e.clientHeight/2}function u(n){let g=n.viewBox.baseVal,h=a.svg&&Math.abs(g.width-a.width)<40&&Math.abs(g.height-a.height)<.5;a.width=g.width,a.height=g.height;let b=e.scrollLeft,m=e.scrollTop;e.replaceChildren(n),a.svg=n,h||a.userScaled||(a.scale=Math.max(l(),Math.min(1,.55))),s(),h&&(e.scrollLeft=b,e.scrollTop=m)}function i(){a.svg&&!a.userScaled&&(a.scale=Math.max(l(),Math.min(1,.55)),s())}let d=null;e.addEventListener("pointerdown",n=>{n.button!==0||n.target.closest("g.node")||(d={x:n.clientX,y:n.clientY,left:e.scrollLeft,top:e.scrollTop},e.classList.add("al-panning"),e.setPointerCapture(n.pointerId))}),e.addEventListener("pointermove",n=>{d!==null&&(e.scrollLeft=d.left-(n.clientX-d.x),e.scrollTop=d.top-(n.clientY-d.y))});let v=()=>{d=null,e.classList.remove("al-panning")};return e.addEventListener("pointerup",v),e.addEventListener("pointercancel",v),e.addEventListener("wheel",n=>{(n.ctrlKey||n.metaKey)&&(n.preventDefault(),p(a.scale*(n.deltaY<0?1.15:1/1.15),!0))},{passive:!1}),{view:a,show:u,refit:i,setScale:p,fitScale:l}}function D(e,t){return t.left>=e.left&&t.right<=e.right&&t.top>=e.top&&t.bottom<=e.bottom}function $(e){let t={left:0,top:0,right:window.innerWidth,bottom:window.innerHeight};for(let a=e.parentElement;a;a=a.parentElement){let r=getComputedStyle(a);if(/(auto|scroll)/.test(r.overflowY+r.overflowX)){let l=a.getBoundingClientRect();t={left:Math.max(t.left,l.left),top:Math.max(t.top,l.top),right:Math.min(t.right,l.right),bottom:Math.min(t.bottom,l.bottom)}}}return t}function O(e,t,a){let r=e.getBoundingClientRect(),l=t.getBoundingClientRect();D(r,l)||(e.scrollLeft+=l.left+l.width/2-(r.left+r.width/2),e.scrollTop+=l.top+l.height/2-(r.top+r.height/2));let s=$(a);if(D(s,t.getBoundingClientRect()))return;a.getBoundingClientRect().height<=s.bottom-s.top?a.scrollIntoView({block:"nearest"}):t.scrollIntoView({block:"center",inline:"nearest"})}function W({model:e,el:t}){let a=o("div","al-lab"),r=o("style");r.textContent=H;let l=o("div","al-messages"),s=o("div","al-controls"),p=o("div","al-caption"),u=o("div","al-bar"),i=o("div","al-direction"),d=o("div","al-zoom"),v=o("div","al-row"),n=o("div","al-graph"),g=o("div","al-details"),h=o("div","al-more"),b=o("details","al-legend"),m=o("div","al-legend-items"),k=o("details","al-outline"),E=o("pre");b.append(o("summary","","Legend"),m),k.append(o("summary","","The same graph as text"),E),h.append(b,k),u.append(i,d),v.append(n,g),a.append(r,l,s,p,u,v,h),t.appendChild(a);let f=Y(n,a),M=o("span","al-scale");for(let[c,x,w,q]of[["al-fit","Fit","Show the whole graph",()=>f.setScale(f.fitScale(),!0)],["al-actual","1:1","Actual size",()=>f.setScale(1,!0)],["al-out","\u2212","Zoom out (or Ctrl + wheel)",()=>f.setScale(f.view.scale/1.25,!0)],["al-in","+","Zoom in (or Ctrl + wheel)",()=>f.setScale(f.view.scale*1.25,!0)]]){let L=o("button",c,x);L.title=w,L.addEventListener("click",q),d.appendChild(L)}d.appendChild(M),f.view.onScale=c=>{M.textContent=`${Math.round(c*100)}%`};let A=X(e,s),z=0;function B(){e.set("selected",""),e.save_changes(),g.replaceChildren(),y()}function y(){let c=e.get("selected");for(let x of n.querySelectorAll("g.node"))x.classList.toggle("al-selected",x.dataset.id===c)}function R(){let c=n.querySelector("g.al-current");c&&(e.get("stepper")||{}).enabled&&O(n,c,a)}function T(){let c=++z,x;try{x=F(e.get("svg")||'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>')}catch(w){n.replaceChildren(o("div","al-error-box","This drawing could not be shown: "+w));return}if(c===z){for(let w of x.querySelectorAll("g.node"))w.addEventListener("click",()=>{e.set("selected",w.dataset.id),e.save_changes(),y()});f.show(x),a.dataset.renders=String(Number(a.dataset.renders||0)+1),y(),R()}}function j(){let c=e.get("stepper")||{};s.style.display=c.enabled?"flex":"none",p.style.display=c.enabled?"block":"none",p.textContent=c.enabled&&c.caption||"",A.update(c)}function C(){l.replaceChildren();for(let c of e.get("warnings")||[])l.appendChild(o("div","al-stale","\u26A0 "+c));for(let c of e.get("messages")||[])l.appendChild(o("div","al-message",c))}function S(){i.textContent="\u2193 "+(e.get("direction")||""),P(m,e.get("legend")),E.textContent=e.get("outline")||"",k.style.display=e.get("outline")?"":"none"}e.on("change:svg",T),e.on("change:details",()=>_(g,e.get("details"),B)),e.on("change:stepper",j),e.on("change:warnings",C),e.on("change:messages",C),e.on("change:selected",y),e.on("change:legend",S),e.on("change:outline",S),j(),C(),S(),_(g,e.get("details"),B);let I=new ResizeObserver(()=>f.refit());return I.observe(a),requestAnimationFrame(T),()=>{A.stop(),I.disconnect()}}var G={render:W};export{G as default};
