var Y=`
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
`,$=typeof CSS<"u"&&CSS.supports("color","color-mix(in srgb, red 50%, blue)"),D={op:"#dbe9f6",leaf:"#dcefd9",tensor:"#fff2bf",fold:"#ece6f6",done:"#e6e6e6",freed:"#eeeeee",off:"#f4f4f4"};function i(e,l,t){let a=document.createElement(e);return l&&(a.className=l),t!==void 0&&(a.textContent=t),a}function G(e){let l=new DOMParser().parseFromString(e,"image/svg+xml"),t=l.documentElement;if(!t||t.nodeName!=="svg"||l.querySelector("parsererror"))throw new Error("not an SVG drawing");for(let a of t.querySelectorAll("script, foreignObject, iframe, a"))a.remove();for(let a of[t,...t.querySelectorAll("*")])for(let n of[...a.attributes])(/^on/i.test(n.name)||/href$/i.test(n.name))&&a.removeAttribute(n.name);return document.importNode(t,!0)}function O(e){let l=[],t=o=>String((e.get("texts")||{})[o]??"");function a(o,c,p="textContent"){return l.push([o,c,p]),p==="textContent"?o.textContent=t(c):o.setAttribute(p,t(c)),o}function n(){for(let[o,c,p]of l)p==="textContent"?o.textContent=t(c):o.setAttribute(p,t(c))}return{text:t,label:a,relabel:n}}function R(e,l,t,a){if(e.replaceChildren(),!l||!l.title)return;let n=i("button","al-close","\xD7");n.title=a.text("close"),n.addEventListener("click",t),e.append(n,i("h4","",l.title));for(let o of l.sections||[]){o.title&&e.appendChild(i("div",o.stale?"al-stale":"",o.title));let c=i("table");for(let[p,b]of o.rows||[]){let g=i("tr");g.appendChild(i("td","",String(p))),g.appendChild(i("td",o.stale?"al-stale":"",String(b))),c.appendChild(g)}e.appendChild(c)}}function W(e,l){e.replaceChildren();for(let[t,a]of l||[]){let n=i("span","al-legend-item"),o=i("span",`al-swatch al-sw-${t}`,t==="stale"?"\u26A0":"");t==="stale"?Object.assign(o.style,{border:"none",width:"auto",height:"auto"}):D[t]&&!$&&(o.style.background=D[t]),n.append(o,document.createTextNode(a)),e.appendChild(n)}}function K(e,l,t){let a={},n=null;for(let s of["reset","back","play","next"]){let r=i("button",`al-${s}`);s!=="play"&&t.label(r,s),r.addEventListener("click",()=>b(s)),a[s]=r,l.appendChild(r)}let o=i("input","al-slider");o.type="range",o.min="0",t.label(o,"slider","aria-label"),l.appendChild(o),c();function c(){a.play.textContent=t.text(n===null?"play":"pause")}o.addEventListener("change",()=>e.send({action:"seek",index:Number(o.value)}));function p(){n!==null&&clearInterval(n),n=null,c()}function b(s){if(s==="play"){if(n!==null)return p();n=setInterval(()=>{let r=e.get("stepper")||{};if(r.index>=r.total)return p();e.send({action:"next"})},Number((e.get("stepper")||{}).interval_ms||700)),c();return}s==="reset"&&p(),e.send({action:s})}function g(s){o.max=String(s.total||0),o.value=String(s.index||0),a.next.disabled=!s.enabled||s.index>=s.total,a.back.disabled=!s.enabled||s.index<=0,s.index>=s.total&&p()}return{update:g,stop:p,playLabel:c}}function P(e,l){let t={svg:null,width:0,height:0,scale:1,userScaled:!1};function a(){return Math.max(260,Math.min(window.innerHeight*.75,900))}function n(){let r=Math.max(120,l.clientWidth-4);return Math.min(1,r/t.width,a()/t.height)}function o(){t.svg&&(t.svg.setAttribute("width",String(Math.round(t.width*t.scale))),t.svg.setAttribute("height",String(Math.round(t.height*t.scale))),e.style.maxHeight=`${Math.round(a())}px`,l.dataset.scale=t.scale.toFixed(3),t.onScale&&t.onScale(t.scale))}function c(r,f){let m=t.scale;t.scale=Math.min(4,Math.max(.05,r)),t.userScaled=f;let w=e.scrollLeft+e.clientWidth/2,y=e.scrollTop+e.clientHeight/2;o(),e.scrollLeft=w*t.scale/m-e.clientWidth/2,e.scrollTop=y*t.scale/m-e.clientHeight/2}function p(r){let f=r.viewBox.baseVal,m=t.svg&&Math.abs(f.width-t.width)<40&&Math.abs(f.height-t.height)<.5;t.width=f.width,t.height=f.height;let w=e.scrollLeft,y=e.scrollTop;e.replaceChildren(r),t.svg=r,m||t.userScaled||(t.scale=Math.max(n(),Math.min(1,.55))),o(),m&&(e.scrollLeft=w,e.scrollTop=y)}function b(){t.svg&&!t.userScaled&&(t.scale=Math.max(n(),Math.min(1,.55)),o())}let g=null;e.addEventListener("pointerdown",r=>{r.button!==0||r.target.closest("g.node")||(g={x:r.clientX,y:r.clientY,left:e.scrollLeft,top:e.scrollTop},e.classList.add("al-panning"),e.setPointerCapture(r.pointerId))}),e.addEventListener("pointermove",r=>{g!==null&&(e.scrollLeft=g.left-(r.clientX-g.x),e.scrollTop=g.top-(r.clientY-g.y))});let s=()=>{g=null,e.classList.remove("al-panning")};return e.addEventListener("pointerup",s),e.addEventListener("pointercancel",s),e.addEventListener("wheel",r=>{(r.ctrlKey||r.metaKey)&&(r.preventDefault(),c(t.scale*(r.deltaY<0?1.15:1/1.15),!0))},{passive:!1}),{view:t,show:p,refit:b,setScale:c,fitScale:n}}function z(e,l){return l.left>=e.left&&l.right<=e.right&&l.top>=e.top&&l.bottom<=e.bottom}function V(e){let l={left:0,top:0,right:window.innerWidth,bottom:window.innerHeight};for(let t=e.parentElement;t;t=t.parentElement){let a=getComputedStyle(t);if(/(auto|scroll)/.test(a.overflowY+a.overflowX)){let n=t.getBoundingClientRect();l={left:Math.max(l.left,n.left),top:Math.max(l.top,n.top),right:Math.min(l.right,n.right),bottom:Math.min(l.bottom,n.bottom)}}}return l}function H(e,l){let t=e.getBoundingClientRect(),a=l.getBoundingClientRect();z(t,a)||(e.scrollLeft+=a.left+a.width/2-(t.left+t.width/2),e.scrollTop+=a.top+a.height/2-(t.top+t.height/2))}function J(e,l,t){H(e,l);let a=V(t);if(z(a,l.getBoundingClientRect()))return;t.getBoundingClientRect().height<=a.bottom-a.top?t.scrollIntoView({block:"nearest"}):l.scrollIntoView({block:"center",inline:"nearest"})}function Q({model:e,el:l}){let t=i("div","al-lab"),a=i("style");a.textContent=Y;let n=i("div","al-messages"),o=i("div","al-controls"),c=i("div","al-caption"),p=i("div","al-bar"),b=i("div","al-direction"),g=i("div","al-zoom"),s=i("div","al-row"),r=i("div","al-graph"),f=i("div","al-details"),m=i("div","al-more"),w=i("details","al-legend"),y=i("div","al-legend-items"),L=i("details","al-outline"),_=i("pre"),h=O(e);w.append(h.label(i("summary"),"legend"),y),L.append(h.label(i("summary"),"outline"),_),m.append(w,L),p.append(b,g),s.append(r,f),t.append(a,n,o,c,p,s,m),l.appendChild(t);let v=P(r,t),B=i("span","al-scale"),F=["\u2212","+"];for(let[d,u,A,x]of[["al-fit","fit","fit_title",()=>v.setScale(v.fitScale(),!0)],["al-actual","actual","actual_title",()=>v.setScale(1,!0)],["al-out","\u2212","zoom_out_title",()=>v.setScale(v.view.scale/1.25,!0)],["al-in","+","zoom_in_title",()=>v.setScale(v.view.scale*1.25,!0)]]){let C=i("button",d);F.includes(u)?C.textContent=u:h.label(C,u),h.label(C,A,"title"),C.addEventListener("click",x),g.appendChild(C)}g.appendChild(B),v.view.onScale=d=>{B.textContent=`${Math.round(d*100)}%`};let E=K(e,o,h),T=0;function j(){e.set("selected",""),e.save_changes(),f.replaceChildren(),S()}function S(){let d=e.get("selected");for(let u of r.querySelectorAll("g.node"))u.classList.toggle("al-selected",u.dataset.id===d)}function X(){let d=r.querySelector("g.al-current");d&&(e.get("stepper")||{}).enabled&&J(r,d,t)}function I(){let d=++T,u;try{u=G(e.get("svg")||'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>')}catch(x){r.replaceChildren(i("div","al-error-box",h.text("cannot_show")+x));return}if(d!==T)return;for(let x of u.querySelectorAll("g.node"))x.addEventListener("click",()=>{e.set("selected",x.dataset.id),e.save_changes(),S()});let A=!r.querySelector("svg");if(v.show(u),A){let x=u.querySelector("g.al-tensor")||u.querySelector("g.node");x&&H(r,x)}t.dataset.renders=String(Number(t.dataset.renders||0)+1),S(),X()}function q(){let d=e.get("stepper")||{};o.style.display=d.enabled?"flex":"none",c.style.display=d.enabled?"block":"none",c.textContent=d.enabled&&d.caption||"",E.update(d)}function M(){n.replaceChildren();for(let d of e.get("warnings")||[])n.appendChild(i("div","al-stale","\u26A0 "+d));for(let d of e.get("messages")||[])n.appendChild(i("div","al-message",d))}function k(){b.textContent="\u2193 "+(e.get("direction")||""),W(y,e.get("legend")),_.textContent=e.get("outline")||"",L.style.display=e.get("outline")?"":"none"}e.on("change:svg",I),e.on("change:details",()=>{R(f,e.get("details"),j,h),requestAnimationFrame(()=>{f.firstChild&&!z(V(t),f.getBoundingClientRect())&&f.scrollIntoView({block:"nearest"})})}),e.on("change:stepper",q),e.on("change:warnings",M),e.on("change:messages",M),e.on("change:selected",S),e.on("change:legend",k),e.on("change:outline",k),e.on("change:direction",k),e.on("change:texts",()=>{h.relabel(),E.playLabel()}),q(),M(),k(),R(f,e.get("details"),j,h);let N=new ResizeObserver(()=>v.refit());return N.observe(t),requestAnimationFrame(I),()=>{E.stop(),N.disconnect()}}var U={render:Q};export{U as default};
