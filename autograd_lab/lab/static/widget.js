var R=`
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
.al-details { flex: 1 1 260px; min-width: 240px; max-width: 440px; border-left: 3px solid var(--al-accent);
  padding: 2px 8px; white-space: pre-wrap; color: var(--al-fg1); }
.al-details:empty { display: none; }
.al-details .al-close { float: right; padding: 0 6px; }
.al-details h4 { margin: 2px 0 4px 0; font-size: 13px; color: var(--al-fg); }
.al-details table { border-collapse: collapse; font-size: 12px; }
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
`,F=typeof CSS<"u"&&CSS.supports("color","color-mix(in srgb, red 50%, blue)"),_={op:"#dbe9f6",leaf:"#dcefd9",tensor:"#fff2bf",fold:"#ece6f6",done:"#e6e6e6",freed:"#eeeeee",off:"#f4f4f4"};function t(e,i,a){let l=document.createElement(e);return i&&(l.className=i),a!==void 0&&(l.textContent=a),l}function H(e){let i=new DOMParser().parseFromString(e,"image/svg+xml"),a=i.documentElement;if(!a||a.nodeName!=="svg"||i.querySelector("parsererror"))throw new Error("not an SVG drawing");for(let l of a.querySelectorAll("script, foreignObject, iframe, a"))l.remove();for(let l of[a,...a.querySelectorAll("*")])for(let r of[...l.attributes])(/^on/i.test(r.name)||/href$/i.test(r.name))&&l.removeAttribute(r.name);return document.importNode(a,!0)}function D(e,i,a){if(e.replaceChildren(),!i||!i.title)return;let l=t("button","al-close","\xD7");l.title="Close the details",l.addEventListener("click",a),e.append(l,t("h4","",i.title));for(let r of i.sections||[]){r.title&&e.appendChild(t("div",r.stale?"al-stale":"",r.title));let s=t("table");for(let[g,u]of r.rows||[]){let n=t("tr");n.appendChild(t("td","",String(g))),n.appendChild(t("td",r.stale?"al-stale":"",String(u))),s.appendChild(n)}e.appendChild(s)}}function P(e,i){e.replaceChildren();for(let[a,l]of i||[]){let r=t("span","al-legend-item"),s=t("span",`al-swatch al-sw-${a}`,a==="stale"?"\u26A0":"");a==="stale"?Object.assign(s.style,{border:"none",width:"auto",height:"auto"}):_[a]&&!F&&(s.style.background=_[a]),r.append(s,document.createTextNode(l)),e.appendChild(r)}}function V(e,i){let a={},l=null;for(let[n,d]of[["reset","Reset"],["back","\u25C0 Back"],["play","\u25B6 Play"],["next","Next \u25B6"]]){let v=t("button",`al-${n}`,d);v.addEventListener("click",()=>g(n)),a[n]=v,i.appendChild(v)}let r=t("input","al-slider");r.type="range",r.min="0",r.setAttribute("aria-label","backward step"),r.addEventListener("change",()=>e.send({action:"seek",index:Number(r.value)})),i.appendChild(r);function s(){l!==null&&clearInterval(l),l=null,a.play.textContent="\u25B6 Play"}function g(n){if(n==="play"){if(l!==null)return s();a.play.textContent="\u23F8 Pause",l=setInterval(()=>{let d=e.get("stepper")||{};if(d.index>=d.total)return s();e.send({action:"next"})},Number((e.get("stepper")||{}).interval_ms||700));return}n==="reset"&&s(),e.send({action:n})}function u(n){r.max=String(n.total||0),r.value=String(n.index||0),a.next.disabled=!n.enabled||n.index>=n.total,a.back.disabled=!n.enabled||n.index<=0,n.index>=n.total&&s()}return{update:u,stop:s}}function $(e,i){let a={svg:null,width:0,height:0,scale:1,userScaled:!1};function l(){return Math.max(260,Math.min(window.innerHeight*.75,900))}function r(){let o=Math.max(120,i.clientWidth-4);return Math.min(1,o/a.width,l()/a.height)}function s(){a.svg&&(a.svg.setAttribute("width",String(Math.round(a.width*a.scale))),a.svg.setAttribute("height",String(Math.round(a.height*a.scale))),e.style.maxHeight=`${Math.round(l())}px`,i.dataset.scale=a.scale.toFixed(3),a.onScale&&a.onScale(a.scale))}function g(o,p){let h=a.scale;a.scale=Math.min(4,Math.max(.05,o)),a.userScaled=p;let b=e.scrollLeft+e.clientWidth/2,m=e.scrollTop+e.clientHeight/2;s(),e.scrollLeft=b*a.scale/h-e.clientWidth/2,e.scrollTop=m*a.scale/h-e.clientHeight/2}function u(o){let p=o.viewBox.baseVal,h=a.svg&&Math.abs(p.width-a.width)<40&&Math.abs(p.height-a.height)<.5;a.width=p.width,a.height=p.height;let b=e.scrollLeft,m=e.scrollTop;e.replaceChildren(o),a.svg=o,h||a.userScaled||(a.scale=Math.max(r(),Math.min(1,.55))),s(),h&&(e.scrollLeft=b,e.scrollTop=m)}function n(){a.svg&&!a.userScaled&&(a.scale=Math.max(r(),Math.min(1,.55)),s())}let d=null;e.addEventListener("pointerdown",o=>{o.button!==0||o.target.closest("g.node")||(d={x:o.clientX,y:o.clientY,left:e.scrollLeft,top:e.scrollTop},e.classList.add("al-panning"),e.setPointerCapture(o.pointerId))}),e.addEventListener("pointermove",o=>{d!==null&&(e.scrollLeft=d.left-(o.clientX-d.x),e.scrollTop=d.top-(o.clientY-d.y))});let v=()=>{d=null,e.classList.remove("al-panning")};return e.addEventListener("pointerup",v),e.addEventListener("pointercancel",v),e.addEventListener("wheel",o=>{(o.ctrlKey||o.metaKey)&&(o.preventDefault(),g(a.scale*(o.deltaY<0?1.15:1/1.15),!0))},{passive:!1}),{view:a,show:u,refit:n,setScale:g,fitScale:r}}function O(e,i){let a=e.getBoundingClientRect(),l=i.getBoundingClientRect();l.left>=a.left&&l.right<=a.right&&l.top>=a.top&&l.bottom<=a.bottom||(e.scrollLeft+=l.left+l.width/2-(a.left+a.width/2),e.scrollTop+=l.top+l.height/2-(a.top+a.height/2)),i.scrollIntoView({block:"nearest",inline:"nearest"})}function X({model:e,el:i}){let a=t("div","al-lab"),l=t("style");l.textContent=R;let r=t("div","al-messages"),s=t("div","al-controls"),g=t("div","al-caption"),u=t("div","al-bar"),n=t("div","al-direction"),d=t("div","al-zoom"),v=t("div","al-row"),o=t("div","al-graph"),p=t("div","al-details"),h=t("div","al-more"),b=t("details","al-legend"),m=t("div","al-legend-items"),k=t("details","al-outline"),E=t("pre");b.append(t("summary","","Legend"),m),k.append(t("summary","","The same graph as text"),E),h.append(b,k),u.append(n,d),v.append(o,p),a.append(l,r,s,g,u,v,h),i.appendChild(a);let f=$(o,a),M=t("span","al-scale");for(let[c,x,w,q]of[["al-fit","Fit","Show the whole graph",()=>f.setScale(f.fitScale(),!0)],["al-actual","1:1","Actual size",()=>f.setScale(1,!0)],["al-out","\u2212","Zoom out (or Ctrl + wheel)",()=>f.setScale(f.view.scale/1.25,!0)],["al-in","+","Zoom in (or Ctrl + wheel)",()=>f.setScale(f.view.scale*1.25,!0)]]){let L=t("button",c,x);L.title=w,L.addEventListener("click",q),d.appendChild(L)}d.appendChild(M),f.view.onScale=c=>{M.textContent=`${Math.round(c*100)}%`};let A=V(e,s),z=0;function T(){e.set("selected",""),e.save_changes(),p.replaceChildren(),y()}function y(){let c=e.get("selected");for(let x of o.querySelectorAll("g.node"))x.classList.toggle("al-selected",x.dataset.id===c)}function I(){let c=o.querySelector("g.al-current");c&&(e.get("stepper")||{}).enabled&&O(o,c)}function j(){let c=++z,x;try{x=H(e.get("svg")||'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>')}catch(w){o.replaceChildren(t("div","al-error-box","This drawing could not be shown: "+w));return}if(c===z){for(let w of x.querySelectorAll("g.node"))w.addEventListener("click",()=>{e.set("selected",w.dataset.id),e.save_changes(),y()});f.show(x),a.dataset.renders=String(Number(a.dataset.renders||0)+1),y(),I()}}function B(){let c=e.get("stepper")||{};s.style.display=c.enabled?"flex":"none",g.style.display=c.enabled?"block":"none",g.textContent=c.enabled&&c.caption||"",A.update(c)}function S(){r.replaceChildren();for(let c of e.get("warnings")||[])r.appendChild(t("div","al-stale","\u26A0 "+c));for(let c of e.get("messages")||[])r.appendChild(t("div","al-message",c))}function C(){n.textContent="\u2193 "+(e.get("direction")||""),P(m,e.get("legend")),E.textContent=e.get("outline")||"",k.style.display=e.get("outline")?"":"none"}e.on("change:svg",j),e.on("change:details",()=>D(p,e.get("details"),T)),e.on("change:stepper",B),e.on("change:warnings",S),e.on("change:messages",S),e.on("change:selected",y),e.on("change:legend",C),e.on("change:outline",C),B(),S(),C(),D(p,e.get("details"),T);let N=new ResizeObserver(()=>f.refit());return N.observe(a),requestAnimationFrame(j),()=>{A.stop(),N.disconnect()}}var Y={render:X};export{Y as default};
