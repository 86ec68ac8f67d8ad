"""“自己动手”系列 B1 到 B6 的检查器 (``course/exb1.py`` ... ``course/exb6.py``)。"""

MESSAGES = {
    "build.backward_for": "backward，用于 {graph}",
    "build.for_case": "对于 {graph}：{message}",
    # -- B1：张量和它的计算图 ---------------------------------------------------------------------------------
    "exb1.not_a_pair": "gradient_edge({what}) 返回了 {edge}；它应该返回一个二元组 (节点或 None, 0)。",
    "exb1.second_item": ("gradient_edge({what}) 返回的二元组第二项是 {item}；它应该是 0"
                         "（表示这个张量是节点的第几个输出：我们的运算都只有一个输出）。"),
    "exb1.leaf_none": ("对需要梯度的叶子张量，gradient_edge(leaf) 返回了 (None, 0)：它的梯度必须送到一个 "
                       "AccumulateGrad 节点，由它累加进 leaf.grad。"),
    "exb1.leaf_variable": "gradient_edge(leaf) 返回的节点的 .variable 不是这个叶子：请用 AccumulateGrad(t) 创建它。",
    "exb1.leaf_next": "AccumulateGrad 节点不应该有 next_functions：叶子张量的梯度不再往下传。",
    "exb1.constant_node": ("对不需要梯度的张量，gradient_edge(constant) 却返回了一个节点：没人要它的梯度，"
                           "所以它的边是 (None, 0)，反向传播会跳过它。"),
    "exb1.result_node": "gradient_edge(result) 应该把梯度送到 result.grad_fn，也就是生成它的节点；它返回的是 {node}。",
    "exb1.second_call": "第二次调用 gradient_edge(leaf)",
    "exb1.two_accumulators": ("对同一个叶子调用两次，gradient_edge 创建了两个 AccumulateGrad 节点。一个叶子只有一个："
                              "第一次创建后把它存在张量上（t.accumulator），之后直接返回它，"
                              "这样经由各条路径到达这个叶子的梯度才会汇集到同一个地方。"),
    "exb1.edge_passed": "常量没有节点，结果对应它的 grad_fn，每个叶子只有一个存在它身上的 AccumulateGrad。",
    "exb1.return_out": "record 应该返回 out（传给它的那个张量），这样运算函数才能以 return record(...) 结尾。",
    "exb1.edges_tuple": "node.next_functions 应该是元组，每个输入一条 (node, 0) 边（这里是 {inputs} 条）；收到的是 {edges}。",
    "exb1.edge_to_accumulator": ("第 {i} 条边应该通向 {name} 的 AccumulateGrad（gradient_edge({name})）；"
                                 "next_functions 必须与输入的顺序一致。"),
    "exb1.edge_wrong": ("第 {i} 条边（{name}）应该是 gradient_edge({name})；收到的是 ({child}, ...)。"
                        "next_functions 必须与输入的顺序一致。"),
    "exb1.out_requires_grad": "a 需要梯度，所以 a * c 也需要：只要有一个输入需要梯度，就设置 out.requires_grad。",
    "exb1.out_grad_fn": "out.grad_fn 应该就是传给你的那个节点：out 正是靠它记住自己是怎么来的。",
    "exb1.node_shape": "node.shape 应该等于 out 的形状 {shape}：反向传播（B4 课）会用它检查到达节点的梯度。",
    "exb1.saved_name": ("record(..., {name}=...) 应该把这个值存为 node._saved_{name}（PyTorch 的命名方式），留给节点的 "
                        "backward 读取。"),
    "exb1.inputs_result_leaf_twice": "（输入：一个运算结果，然后是同一个叶子两次）",
    "exb1.nothing_recorded": ("c * c 的输入都不需要梯度，所以什么都不应该记录：out.requires_grad 保持 False，"
                              "out.grad_fn 保持 None（PyTorch 也不会为它构建计算图）。"),
    "exb1.record_passed": ("out 恰好在有输入需要梯度时才需要梯度；它的 grad_fn 按顺序为每个输入留一条边，"
                           "记下输出的形状和反向传播要用的东西。"),
    # -- B2：运算及其导数 --------------------------------------------------------------------------------------
    "exb2.reminder.div": "d(a/b)/da = 1/b，d(a/b)/db = -a/b²，都要乘以 grad。",
    "exb2.reminder.exp": "d exp(x)/dx = exp(x)：节点已经把它存为 result，不用再算一遍。",
    "exb2.reminder.log": "d log(x)/dx = 1/x。",
    "exb2.reminder.tanh": "d tanh(x)/dx = 1 - tanh(x)²：节点已经把 tanh(x) 存为 result。",
    "exb2.reminder.relu": "d relu(x)/dx 在 x > 0 处为 1，其余为 0：是一个掩码 result > 0（节点保存了 result）。",
    "exb2.reminder.matmul": "对 a：grad @ b.T；对 b：a.T @ grad。每个梯度的形状都与它的输入相同。",
    "exb2.reminder.sum": ("x 的每个元素都在它所在的和里出现一次，所以它收到这个和的梯度：先把被求和的轴放回去"
                          "（keepdims=False 时用 np.expand_dims），再 np.broadcast_to(grad, x 的形状)。"),
    "exb2.with_reminder": "{label}：{message}\n复习一下：{reminder}",
    "exb2.gradient_for": "{label}，{name} 的梯度",
    "exb2.reminder_after": "{message}\n复习一下：{reminder}",
    "exb2.div_passed": "DivBackward 把 grad / b 送给 a，把 -grad * a / b² 送给 b。",
    "exb2.unary_passed": "exp、log、tanh 和 relu：各自的局部导数乘以 grad。exp 和 tanh 复用了保存的结果。",
    "exb2.matmul_passed": "对 a 是 grad @ b.T，对 b 是 a.T @ grad：只有这两个乘积的形状对得上。",
    "exb2.sum_passed": "求和的梯度被分发回每一个参与求和的元素，无论沿哪个轴。",
    # -- B3：拓扑序与反向传播 ----------------------------------------------------------------------------------
    "exb3.graph_skip": "r + (r * c).tanh()，其中 r = p.relu()",
    "exb3.graph_chain": "由 {deep} 个 tanh 组成的链",
    "exb3.twice": "对于 {graph}：{names} 出现了不止一次。沿两条路径到达的节点仍是同一个节点：记住访问过的节点，每个只列一次。",
    "exb3.missing": ("对于 {graph}：缺少 {missing} 个可到达的节点（{names}），另有 {extra} 个不在图中。"
                     "请列出经由 next_functions 能到达的每个节点，包括根节点。"),
    "exb3.too_early": ("对于 {graph}：{child} 排在 {node} 前面，而 {node} 要给它发送梯度。{child} 会在它的梯度"
                       "全部到达之前就运行：每个节点都必须排在所有指向它的节点之后（把深度优先的后序反过来）。"),
    "exb3.order_for": "对 {graph} 的 topological_order",
    "exb3.not_a_list": "topological_order 应该返回节点的列表；收到的是 {type}。",
    "exb3.order_passed": "每个节点只出现一次，排在所有向它输送梯度的节点之后；由 {deep} 个节点组成的链也不用递归就走完了。",
    "exb3.case.two_paths": "y = (x * w + x).sum()：x 沿两条路径到达",
    "exb3.case.with_gradient": "y = x * w，backward(y, gradient=[1.0, -2.0])",
    "exb3.case.on_a_leaf": "对叶子调用 x.backward(gradient=[0.5, 1.0])",
    "exb3.fan_in_wrong": ("对于 z = (h * h + h).sum()，其中 h = (x * 2).exp() 只计算一次：{message}\n"
                          "提示：ExpBackward 会收到三个梯度（h * h 送来两个，+ h 送来一个）。"
                          "把到达某个节点的每个梯度都累加进一个字典，等轮到它在拓扑序中的位置时，只运行一次。"),
    "exb3.fan_in_calls": ("对于 z = (h * h + h).sum()，其中 h = (x * 2).exp()：ExpBackward 运行了 {calls} 次。"
                          "它应该只运行一次，拿三个梯度的和来运行：每条路径运行一次节点，"
                          "会让深层网络的反向传播慢到指数级。请按拓扑序运行各节点，把待处理的梯度存在字典里。"),
    "exb3.scalar_other_message": "对非标量的 y 调用 backward(y) 抛出了 RuntimeError：{error}；请使用 PyTorch 的原话 '{phrase}'。",
    "exb3.scalar_raised": "对非标量的 y 调用 backward(y) 抛出了 {type}：{error}",
    "exb3.scalar_ran": ("y 的形状是 (2,)，没给 gradient，backward(y) 却运行了。它该从哪个梯度开始？"
                        "PyTorch 会拒绝：raise RuntimeError('{phrase}')。"),
    "exb3.hint_leaf": "提示：叶子张量没有 grad_fn；从 gradient_edge(tensor) 开始，它会给出叶子的 AccumulateGrad。",
    "exb3.hint_two_paths": ("提示：x 沿两条路径到达 y（经过 x * w，以及直接到达）：在 x 的 AccumulateGrad 运行之前，"
                            "把两个梯度加起来。"),
    "exb3.backward_passed": "每个节点按拓扑序运行一次，拿到的是所有传入梯度之和；各叶子的 .grad 与 autograd_lab 一致。",
    # -- B4：梯度累加与广播 ------------------------------------------------------------------------------------
    "exb4.hint_read_only": ("提示：第一个梯度可能是只读的视图（np.broadcast_to 就会产生这种视图）：存一份副本 grad.copy()，"
                            "再往副本上加。"),
    "exb4.not_empty": ("AccumulateGrad.backward 返回了 {returned}；应该返回 ()（空元组）：叶子张量不再往下传梯度，"
                       "而 backward 的循环会把它和同样是 () 的 next_functions 配对。"),
    "exb4.your_accumulate_grad": "你的 AccumulateGrad 类",
    "exb4.first_call": "AccumulateGrad({name}).backward，第一次调用",
    "exb4.second_call": "AccumulateGrad({name}).backward，第二次调用",
    "exb4.still_none": ("AccumulateGrad({name}).backward(grad) 之后 {name}.grad 仍是 None："
                        "这个节点的任务就是把梯度放进叶子的 .grad（self.variable.grad）。"),
    "exb4.after_one": "一次反向传播之后的 {name}.grad",
    "exb4.aliased": ("第二次反向传播改动了第一次传进来的数组（现在是 {now}）：.grad 就是那个数组本身，+= 直接写进了它。"
                     "别的节点可能也持有同一个数组（AddBackward 把同一个数组送给两个输入）：第一次请存 grad.copy()。"),
    "exb4.replaced": ("两次反向传播之后 {name}.grad 是 {got}：第二次覆盖了第一次。"
                      "PyTorch 会把每次反向传播的梯度累加进 .grad（两步之间由你自己清零）。"),
    "exb4.after_two": "两次反向传播之后的 {name}.grad",
    "exb4.sum_of_both": "两次梯度之和",
    "exb4.accumulate_passed": "每次反向传播都累加进 .grad，而且从不改写传进来的数组。",
    "exb4.sum_to_none": "{label} 返回了 None：请返回求和后的数组。",
    "exb4.hint_keepdims": "shape 中为 1 的轴要保留（keepdims=True），只去掉 shape 中没有的前导轴",
    "exb4.hint_axes_of_one": "对 shape 中为 1 的那些轴求和",
    "exb4.sum_to_shape": "{label} 的形状是 {got}，应为 {shape}：{hint}。",
    "exb4.broadcast_sum": "沿被广播的轴求和的结果",
    "exb4.sum_to_passed": "前导轴求和消去，被拉伸的大小为 1 的轴用 keepdims 求和：每种形状都还原回来了。",
    "exb4.case.bias": "(x * w + b).sum()，其中 x 为 (3, 4)，w 为 (4,)，b 为 (3, 1)",
    "exb4.case.scalar": "((x * s).tanh() + w).sum()，其中 x 为 (2, 2)，w 为 (2,)，s 为 ()",
    "exb4.hint_broadcast_shape": ("提示：运算广播了它的输入，所以它的节点返回的梯度是广播后的形状；在累加之前先 sum_to(grad, "
                                  "child.shape)。"),
    "exb4.hint_sum_in_loop": ("提示：每个梯度都必须与它所属的张量形状相同：在 backward 的循环里，累加之前先 sum_to(grad, "
                              "child.shape)。"),
    "exb4.broadcast_passed": "被广播的输入，其梯度都求和还原回了自己的形状，而且只在一个地方做：backward。",
    # -- B5：版本计数器 ----------------------------------------------------------------------------------------
    "exb5.return_t": "commit(t, result) 应该返回 t 本身（就像 PyTorch 的原地操作返回 self）。",
    "exb5.new_array": ("commit 之后 c.data 成了一个新数组。原地修改的意思是同一块内存：用 t.data[...] = result.data 写进去，"
                       "这样所有引用这个数组的地方都能看到新值。"),
    "exb5.c_after_commit": "commit(c, c + 1.0) 之后的 c",
    "exb5.version_step": ("c._version 从 {before} 变成了 {after}；一次原地修改恰好加 1。保存了 c "
                          "的节点会把这个数与保存时看到的数比较。"),
    "exb5.leaf_other_message": "对需要梯度的叶子调用 commit 抛出了 RuntimeError：{error}；请使用 PyTorch 的原话：'{phrase}'",
    "exb5.leaf_raised": "对需要梯度的叶子调用 commit 抛出了 {type}：{error}",
    "exb5.leaf_changed": ("commit(w, w + 1.0) 修改了 w，而 w 是需要梯度的叶子张量。请像 PyTorch 那样拒绝它，"
                          "抛出 RuntimeError('{phrase}')：否则它的 .grad 对应的是它已经不再具有的值。"),
    "exb5.new_history": ("z += x（commit(z, z + x)）之后，z.grad_fn 应该是新的 AddBackward（result.grad_fn）："
                         "z 的值现在来自这次加法，所以它的历史必须以它结尾。"),
    "exb5.requires_grad_after": "commit 之后，z 是否需要梯度应该与 result 一致（t.requires_grad = result.requires_grad）。",
    "exb5.commit_passed": "同一个数组，版本加 1，换上新的历史，并且拒绝修改需要梯度的叶子。",
    "exb5.before_change": "还没有任何修改时的 saved(node, 'b')",
    "exb5.not_the_array": "saved(node, name) 应该返回保存的张量的数组（它的 .data）：导数公式是在数组上计算的。收到的是 {type}。",
    "exb5.setting": "saved(node, 'axis') 应该原样返回保存的设置 (1)；收到的是 {got}。只有张量才有版本。",
    "exb5.other_message": ("backward 抛出了 RuntimeError：{error}\n请使用 PyTorch 的原话 'one of the variables needed "
                           "for gradient computation has been modified by an inplace operation'，再说明是哪一个。"),
    "exb5.both_versions": ("报错信息应该像 PyTorch 那样给出两个版本号（'... is at version 1; expected version 0 instead.'）；"
                           "你的是：{error}"),
    "exb5.unchecked": ("MulBackward 在版本 0 时保存了 c，之后 c.mul_(10.0) 把它变成了版本 1，反向传播却照常运行："
                       "x.grad = {got}，是用新的 c 算出来的，而不是 [3.0, 4.0]。请在 saved() 中比较 "
                       "node.saved_versions[name] 与张量的 _version，不一致时抛出错误。"),
    "exb5.after_unsaved_change": "修改了没有节点保存的 c 之后的 y.backward()",
    "exb5.hint_unsaved": ("提示：只有节点保存的张量才要紧；c 参与的是加法，而加法什么都不保存，所以这次反向传播是正确的，"
                          "必须能运行。"),
    "exb5.saved_passed": "保存后又被原地修改的张量会以 PyTorch 的报错被拒绝；没改过的、或改过但没人保存的张量都没问题。",
    # -- B6：训练一个网络 --------------------------------------------------------------------------------------
    "exb6.the_network": "网络是 tanh(x @ W1 + b1) @ W2 + b2。",
    "exb6.backward_through": "对 {what} 的反向传播",
    "exb6.mlp_passed": "输出与 autograd_lab 相同，W1、b1、W2 和 b2 的梯度也相同。",
    "exb6.loss_type": ("cross_entropy({label}, targets) 返回了 {type}：应该返回损失，也就是用你的引擎的运算算出来的、"
                       "只装一个数的 Tensor（这样反向传播才能到达 logits）。"),
    "exb6.hint_mean": "提示：损失是整批数据上的平均值，不是总和。",
    "exb6.hint_overflow": "提示：对很大的 logit 取 exp 会上溢。先减去每一行的最大值（这是个常数：整行平移不改变 softmax）。",
    "exb6.large_logits": "较大的 logits",
    "exb6.cross_entropy_passed": "平均负对数似然，logits 很大时也稳定，梯度与 autograd_lab 一致。",
    "exb6.hint_commit_refuses": ("提示：参数是需要梯度的叶子张量，所以 commit 会拒绝修改它。"
                                 "优化器是绕过 autograd 直接改值的：p.data -= lr * p.grad。"),
    "exb6.unchanged": "sgd_step(params, 0.1) 没有改动任何参数：对 params.values() 中的每个 p 更新 p.data。",
    "exb6.uphill": "每个参数都顺着梯度往上走了：损失会变大。要减去 lr * p.grad。",
    "exb6.after_step": "更新一步之后的 {name}",
    "exb6.grad_kept": "更新之后 {name}.grad 仍然保留着：下一次反向传播会累加到它上面（见 B4 课）。p 更新完之后设 p.grad = None。",
    "exb6.sgd_passed": "每个参数都沿梯度的反方向移动了，每个 .grad 都已清空，可以处理下一批数据了。",
}
