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
.al-details { flex: 1 1 230px; min-width: 220px; max-width: 460px; border-left: 3px solid var(--al-accent);
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
`,P=typeof CSS<"u"&&CSS.supports("color","color-mix(in srgb, red 50%, blue)"),R={op:"#dbe9f6",leaf:"#dcefd9",tensor:"#fff2bf",fold:"#ece6f6",done:"#e6e6e6",freed:"#eeeeee",off:"#f4f4f4"};function o(e,t,a){let l=document.createElement(e);return t&&(l.className=t),a!==void 0&&(l.textContent=a),l}function X(e){let t=new DOMParser().parseFromString(e,"image/svg+xml"),a=t.documentElement;if(!a||a.nodeName!=="svg"||t.querySelector("parsererror"))throw new Error("not an SVG drawing");for(let l of a.querySelectorAll("script, foreignObject, iframe, a"))l.remove();for(let l of[a,...a.querySelectorAll("*")])for(let r of[...l.attributes])(/^on/i.test(r.name)||/href$/i.test(r.name))&&l.removeAttribute(r.name);return document.importNode(a,!0)}function _(e,t,a){if(e.replaceChildren(),!t||!t.title)return;let l=o("button","al-close","\xD7");l.title="Close the details",l.addEventListener("click",a),e.append(l,o("h4","",t.title));for(let r of t.sections||[]){r.title&&e.appendChild(o("div",r.stale?"al-stale":"",r.title));let s=o("table");for(let[g,x]of r.rows||[]){let i=o("tr");i.appendChild(o("td","",String(g))),i.appendChild(o("td",r.stale?"al-stale":"",String(x))),s.appendChild(i)}e.appendChild(s)}}function Y(e,t){e.replaceChildren();for(let[a,l]of t||[]){let r=o("span","al-legend-item"),s=o("span",`al-swatch al-sw-${a}`,a==="stale"?"\u26A0":"");a==="stale"?Object.assign(s.style,{border:"none",width:"auto",height:"auto"}):R[a]&&!P&&(s.style.background=R[a]),r.append(s,document.createTextNode(l)),e.appendChild(r)}}function $(e,t){let a={},l=null;for(let[i,d]of[["reset","Reset"],["back","\u25C0 Back"],["play","\u25B6 Play"],["next","Next \u25B6"]]){let u=o("button",`al-${i}`,d);u.addEventListener("click",()=>g(i)),a[i]=u,t.appendChild(u)}let r=o("input","al-slider");r.type="range",r.min="0",r.setAttribute("aria-label","backward step"),r.addEventListener("change",()=>e.send({action:"seek",index:Number(r.value)})),t.appendChild(r);function s(){l!==null&&clearInterval(l),l=null,a.play.textContent="\u25B6 Play"}function g(i){if(i==="play"){if(l!==null)return s();a.play.textContent="\u23F8 Pause",l=setInterval(()=>{let d=e.get("stepper")||{};if(d.index>=d.total)return s();e.send({action:"next"})},Number((e.get("stepper")||{}).interval_ms||700));return}i==="reset"&&s(),e.send({action:i})}function x(i){r.max=String(i.total||0),r.value=String(i.index||0),a.next.disabled=!i.enabled||i.index>=i.total,a.back.disabled=!i.enabled||i.index<=0,i.index>=i.total&&s()}return{update:x,stop:s}}function O(e,t){let a={svg:null,width:0,height:0,scale:1,userScaled:!1};function l(){return Math.max(260,Math.min(window.innerHeight*.75,900))}function r(){let n=Math.max(120,t.clientWidth-4);return Math.min(1,n/a.width,l()/a.height)}function s(){a.svg&&(a.svg.setAttribute("width",String(Math.round(a.width*a.scale))),a.svg.setAttribute("height",String(Math.round(a.height*a.scale))),e.style.maxHeight=`${Math.round(l())}px`,t.dataset.scale=a.scale.toFixed(3),a.onScale&&a.onScale(a.scale))}function g(n,p){let b=a.scale;a.scale=Math.min(4,Math.max(.05,n)),a.userScaled=p;let m=e.scrollLeft+e.clientWidth/2,w=e.scrollTop+e.clientHeight/2;s(),e.scrollLeft=m*a.scale/b-e.clientWidth/2,e.scrollTop=w*a.scale/b-e.clientHeight/2}function x(n){let p=n.viewBox.baseVal,b=a.svg&&Math.abs(p.width-a.width)<40&&Math.abs(p.height-a.height)<.5;a.width=p.width,a.height=p.height;let m=e.scrollLeft,w=e.scrollTop;e.replaceChildren(n),a.svg=n,b||a.userScaled||(a.scale=Math.max(r(),Math.min(1,.55))),s(),b&&(e.scrollLeft=m,e.scrollTop=w)}function i(){a.svg&&!a.userScaled&&(a.scale=Math.max(r(),Math.min(1,.55)),s())}let d=null;e.addEventListener("pointerdown",n=>{n.button!==0||n.target.closest("g.node")||(d={x:n.clientX,y:n.clientY,left:e.scrollLeft,top:e.scrollTop},e.classList.add("al-panning"),e.setPointerCapture(n.pointerId))}),e.addEventListener("pointermove",n=>{d!==null&&(e.scrollLeft=d.left-(n.clientX-d.x),e.scrollTop=d.top-(n.clientY-d.y))});let u=()=>{d=null,e.classList.remove("al-panning")};return e.addEventListener("pointerup",u),e.addEventListener("pointercancel",u),e.addEventListener("wheel",n=>{(n.ctrlKey||n.metaKey)&&(n.preventDefault(),g(a.scale*(n.deltaY<0?1.15:1/1.15),!0))},{passive:!1}),{view:a,show:x,refit:i,setScale:g,fitScale:r}}function M(e,t){return t.left>=e.left&&t.right<=e.right&&t.top>=e.top&&t.bottom<=e.bottom}function D(e){let t={left:0,top:0,right:window.innerWidth,bottom:window.innerHeight};for(let a=e.parentElement;a;a=a.parentElement){let l=getComputedStyle(a);if(/(auto|scroll)/.test(l.overflowY+l.overflowX)){let r=a.getBoundingClientRect();t={left:Math.max(t.left,r.left),top:Math.max(t.top,r.top),right:Math.min(t.right,r.right),bottom:Math.min(t.bottom,r.bottom)}}}return t}function V(e,t){let a=e.getBoundingClientRect(),l=t.getBoundingClientRect();M(a,l)||(e.scrollLeft+=l.left+l.width/2-(a.left+a.width/2),e.scrollTop+=l.top+l.height/2-(a.top+a.height/2))}function W(e,t,a){V(e,t);let l=D(a);if(M(l,t.getBoundingClientRect()))return;a.getBoundingClientRect().height<=l.bottom-l.top?a.scrollIntoView({block:"nearest"}):t.scrollIntoView({block:"center",inline:"nearest"})}function G({model:e,el:t}){let a=o("div","al-lab"),l=o("style");l.textContent=H;let r=o("div","al-messages"),s=o("div","al-controls"),g=o("div","al-caption"),x=o("div","al-bar"),i=o("div","al-direction"),d=o("div","al-zoom"),u=o("div","al-row"),n=o("div","al-graph"),p=o("div","al-details"),b=o("div","al-more"),m=o("details","al-legend"),w=o("div","al-legend-items"),k=o("details","al-outline"),A=o("pre");m.append(o("summary","","Legend"),w),k.append(o("summary","","The same graph as text"),A),b.append(m,k),x.append(i,d),u.append(n,p),a.append(l,r,s,g,x,u,b),t.appendChild(a);let f=O(n,a),z=o("span","al-scale");for(let[c,v,L,h]of[["al-fit","Fit","Show the whole graph",()=>f.setScale(f.fitScale(),!0)],["al-actual","1:1","Actual size",()=>f.setScale(1,!0)],["al-out","\u2212","Zoom out (or Ctrl + wheel)",()=>f.setScale(f.view.scale/1.25,!0)],["al-in","+","Zoom in (or Ctrl + wheel)",()=>f.setScale(f.view.scale*1.25,!0)]]){let E=o("button",c,v);E.title=L,E.addEventListener("click",h),d.appendChild(E)}d.appendChild(z),f.view.onScale=c=>{z.textContent=`${Math.round(c*100)}%`};let B=$(e,s),T=0;function j(){e.set("selected",""),e.save_changes(),p.replaceChildren(),y()}function y(){let c=e.get("selected");for(let v of n.querySelectorAll("g.node"))v.classList.toggle("al-selected",v.dataset.id===c)}function F(){let c=n.querySelector("g.al-current");c&&(e.get("stepper")||{}).enabled&&W(n,c,a)}function I(){let c=++T,v;try{v=X(e.get("svg")||'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>')}catch(h){n.replaceChildren(o("div","al-error-box","This drawing could not be shown: "+h));return}if(c!==T)return;for(let h of v.querySelectorAll("g.node"))h.addEventListener("click",()=>{e.set("selected",h.dataset.id),e.save_changes(),y()});let L=!n.querySelector("svg");if(f.show(v),L){let h=v.querySelector("g.al-tensor")||v.querySelector("g.node");h&&V(n,h)}a.dataset.renders=String(Number(a.dataset.renders||0)+1),y(),F()}function q(){let c=e.get("stepper")||{};s.style.display=c.enabled?"flex":"none",g.style.display=c.enabled?"block":"none",g.textContent=c.enabled&&c.caption||"",B.update(c)}function C(){r.replaceChildren();for(let c of e.get("warnings")||[])r.appendChild(o("div","al-stale","\u26A0 "+c));for(let c of e.get("messages")||[])r.appendChild(o("div","al-message",c))}function S(){i.textContent="\u2193 "+(e.get("direction")||""),Y(w,e.get("legend")),A.textContent=e.get("outline")||"",k.style.display=e.get("outline")?"":"none"}e.on("change:svg",I),e.on("change:details",()=>{_(p,e.get("details"),j),requestAnimationFrame(()=>{p.firstChild&&!M(D(a),p.getBoundingClientRect())&&p.scrollIntoView({block:"nearest"})})}),e.on("change:stepper",q),e.on("change:warnings",C),e.on("change:messages",C),e.on("change:selected",y),e.on("change:legend",S),e.on("change:outline",S),q(),C(),S(),_(p,e.get("details"),j);let N=new ResizeObserver(()=>f.refit());return N.observe(a),requestAnimationFrame(I),()=>{B.stop(),N.disconnect()}}var K={render:G};export{K as default};
