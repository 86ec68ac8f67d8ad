"""第 08 到 16 课的检查器 (``course/ex08.py`` ... ``course/ex16.py``)。"""

MESSAGES = {
    # -- 08：自定义 Function ---------------------------------------------------------------------------------
    "ex08.your_class": "你的 {cls} 类",
    "ex08.not_a_function_class": "请传入类本身（al.autograd.Function 的子类），而不是 {type}。",
    "ex08.forward_raised": "{cls}.apply 在 forward 中抛出了 {type}：{error}",
    "ex08.forward_none": "{cls}.forward 返回了 None：把 `...` 换成返回输出的代码。",
    "ex08.gradcheck_failed": ("{what} 没有通过 gradcheck：{head}\n{detail}\n每一项是 d output[row] / d input[col]："
                              "'numerical' 是有限差分算出的斜率，'analytical' 是你的 backward 返回的值。"),
    "ex08.backward_of_raised": "{what} 的 backward 抛出了 {type}：{error}",
    "ex08.slope_none": "backward 返回了 None：应该返回 grad_output 乘以 softplus 在 x 处的导数。",
    "ex08.not_a_tensor": "forward 应该返回一个 Tensor，返回的却是 {type}。",
    "ex08.nothing_saved": ("forward 没有用 ctx.save_for_backward 保存任何东西。请在那里保存 x（不要写成 ctx.x = x）："
                           "这样保存的张量才会经过版本检查和保存张量钩子 (saved-tensor hooks)。"),
    "ex08.ignores_grad_output": ("backward 忽略了 grad_output：grad_output = 2 时返回的结果和 grad_output = 1 时一样。"
                                 "链式法则是相乘：返回 grad_output * sigmoid(x)。"),
    "ex08.overflow": ("在 float32 下，Softplus.apply 在 x = [-100, 100] 处给出 {values}：exp(100) 上溢成了 inf"
                      "（float32 最大约为 3.4e38，大约是 exp(88.7)）。改写它，别对大数取指数："
                      "softplus(x) = max(x, 0) + log1p(exp(-|x|))，它在 x = 100 处给出 100。"),
    "ex08.far_value": "float32 下 x = [-100, 100] 处的 Softplus.apply(x)",
    "ex08.softplus_stable": "不会上溢的 softplus",
    "ex08.slope_overflow": ("在 float32 下，x = [-100, 100] 处的斜率是 {slope}：backward 也上溢了。"
                            "x.sigmoid()（或 1 / (1 + exp(-x))）保持有限；exp(x) / (1 + exp(x)) 会得到 inf / inf = nan。"),
    "ex08.softplus_passed": "值、保存的输入和梯度都对，gradcheck 通过，而且在 float32 下 x = ±100 处仍保持有限。",
    "ex08.linear_inputs": "Linear（输入为 x、weight、bias）",
    "ex08.no_x_grad_raised": "x 不需要梯度时，backward 抛出了 {type}：{error}",
    "ex08.three_grads": "backward 应该返回由三个梯度组成的元组（x、weight、bias）。",
    "ex08.needless_grad": ("这里 x 不需要梯度（ctx.needs_input_grad 是 {needs}），backward 却还是为它算了梯度。"
                           "对它返回 None：先检查 ctx.needs_input_grad[0]。"),
    "ex08.missing_grad": "weight 和 bias 都需要梯度，可 backward 为其中一个返回了 None。",
    "ex08.linear_passed": "gradcheck 通过，而且 backward 只计算 ctx.needs_input_grad 要求的那些梯度。",
    "ex08.two_outputs": "forward 应该返回两个张量：(out, mask)。",
    "ex08.mask_values": "x > 0 处为 1.0，其余为 0.0",
    "ex08.mask_dtype": "mask 应该是浮点型（和 x 一样），而不是 {dtype}：用 (x > 0).to(x.dtype)。",
    "ex08.mask_requires_grad": ("mask 需要梯度。它是由 x 算出的浮点张量，所以 autograd 默认它可微，"
                                "除非你在 forward 中调用 ctx.mark_non_differentiable(mask)。"),
    "ex08.out_no_grad": "out 不需要梯度：应该只把 mask 标记为不可微。",
    "ex08.first_output": "ReluWithMask 的第一个输出",
    "ex08.mask_passed": "mask 不需要梯度，而 out 的梯度只在 x > 0 处通过。",
    # -- 09：高阶梯度与函数式 API ---------------------------------------------------------------------------
    "ex09.jacobian_none": "my_jacobian 返回了 None：把 `...` 换成返回雅可比矩阵的代码。",
    "ex09.for_function": "{name}，函数为 {label}",
    "ex09.jacobian_passed": "雅可比矩阵的第 i 行就是第 i 个输出的梯度：每一行调用一次 backward（或 grad）。",
    "ex09.hint_create_graph": "提示：第一次 grad 需要 create_graph=True，它的结果才能再求导。",
    "ex09.hvp_none": "my_hvp 返回了 None：把 `...` 换成返回 H @ v 的代码。",
    "ex09.hvp_passed": "对 (grad · v) 再求一次导就得到 H v，代价大约是两次反向传播。",
    "ex09.hint_requires_grad": ("提示：传进来的点没有 requires_grad；在 critic(x) 之前调用 x.requires_grad_()，"
                                "这样才有关于 x 的梯度可求。"),
    "ex09.penalty_not_scalar": "gradient_penalty 应该返回只含一个元素的张量（惩罚项的平均值）。",
    "ex09.reference_penalty": "参考实现的惩罚项",
    "ex09.hint_mean": "提示：你的结果是平均值的 {times} 倍：先对样本求和，再除以样本数（.mean()）。",
    "ex09.penalty_no_grad_fn": ("惩罚项的值对了，但没有 grad_fn，因此没法用它训练 critic。"
                                "请用 al.autograd.grad(..., create_graph=True) 计算内层梯度。"),
    "ex09.reference_gradient": "参考实现的惩罚项的梯度",
    "ex09.penalty_passed": "惩罚项及其对每个参数的梯度都一致：这就是二次反向传播 (double backward)。",
    # -- 10：训练 --------------------------------------------------------------------------------------------
    "ex10.frozen_mlp": "第一层被冻结的 MLP",
    "ex10.count_none": "count_parameters 返回了 None：把 `...` 换成返回参数个数的代码。",
    "ex10.counted_all": "对于{label}，你数了全部 {everything} 个参数；只有 requires_grad=True 的才会被训练（{expected} 个）。",
    "ex10.count_wrong": ("对于{label}，参数个数是 {expected}，你返回的是 {got}。"
                         "对 model.parameters() 中需要梯度的参数（权重和偏置）累加 p.numel()。"),
    "ex10.count_passed": "逐个元素地数需要梯度的权重和偏置，冻结的不算。",
    "ex10.no_step": "参数没有变化：在 loss.backward() 之后调用 optimizer.step()。",
    "ex10.cleared_after_backward": ("optimizer.step() 没有找到梯度：zero_grad() 在 backward 之后运行，把梯度清掉了。"
                                    "正确的顺序是 zero_grad、前向计算、损失、backward、step。"),
    "ex10.no_gradient": ("optimizer.step() 运行了，但没有梯度到达参数：在 step() 之前，对由 model(xb) 算出的损失调用 "
                         "loss.backward()（用 detach 过的输出算出的损失没有回到模型的路径）。"),
    "ex10.loss_none": "train_step 返回了 None：请把损失作为一个数返回（loss.item()）。",
    "ex10.loss_tensor": "train_step 返回了 Tensor：请返回浮点数 loss.item()，免得损失列表让计算图一直留在内存里。",
    "ex10.loss_wrong": "第 {step} 步：损失应为 {expected:.5f}（model(xb) 与 yb 的 cross_entropy），收到 {got:.5f}。",
    "ex10.after_step": "第 {step} 步之后的 {name}",
    "ex10.two_steps": "参考实现的两步 SGD",
    "ex10.no_zero_grad": "第一步对了，第二步不对：没有调用 optimizer.zero_grad()，第二次反向传播的梯度叠加到了第一次的梯度上。",
    "ex10.step_passed": "zero_grad、前向计算、损失、backward、step：参数与参考实现的两步 SGD 一致。",
    "ex10.not_whole": ("{call} 返回了 {got}，不是整数：一层的输出位置数一定是整数。"
                       "用向下取整的除法 (//)，只保留卷积核能完整放下的位置。"),
    "ex10.size_wrong": ("{call} 应为 {expected}（al.nn.Conv2d 给出的值），收到 {got}。"
                        "填充 (padding) 加在两侧；数一数卷积核能完整放下的位置，每隔 stride 个取一个。"),
    "ex10.size_passed": "(size + 2·padding − kernel_size) // stride + 1，每种情况都与 al.nn.Conv2d 的计算一致。",
    # -- 11：历史：2017 年的 API ------------------------------------------------------------------------------
    "ex11.predict_none": "modern_predict 返回了 None：请返回模型的输出。",
    "ex11.under_no_grad": "在 al.no_grad() 下的 model(x)",
    "ex11.still_grad_fn": "输出仍然有 grad_fn：请在 `with al.no_grad():` 中做前向计算。",
    "ex11.saved_then_detached": ("输出没有 grad_fn，但计算它的时候有 {saved} 个张量被保存下来留给反向传播："
                                 "计算图先被记录、然后才被切断（用了 detach？）。请在 al.no_grad() 下做前向计算，"
                                 "这样什么都不会记录或保存。"),
    "ex11.predict_passed": "没有记录计算图，也没有保存任何东西：这正是 volatile=True 当年的用途，如今写作 al.no_grad()。",
    "ex11.modern.A": "loss = -(reward * log_prob).sum(); loss.backward()",
    "ex11.modern.B": "y.grad_fn",
    "ex11.modern.C": "t.requires_grad_()（如今张量就是 Variable）",
    "ex11.modern.D": "y.backward(retain_graph=True)",
    "ex11.modern.E": "with al.no_grad(): ...",
    "ex11.why.1": "PyTorch 0.4 把 Variable 和 Tensor 合并了：每个张量都有 requires_grad、grad 和 grad_fn。",
    "ex11.why.2": "volatile 是输入上的标志；no_grad 是作用于一段代码的模式。",
    "ex11.why.3": "creator 改名为 grad_fn。",
    "ex11.why.4": "retain_variables 改名为 retain_graph。",
    "ex11.why.5": "随机函数 (stochastic functions) 已经取消：得分函数 (score function) 形式的损失要自己写。",
    "ex11.why_separator": "",
    "ex11.letters_dict": "形如 {{'1': 'A', ...}} 的字典",
    "ex11.letter_for": "{keys} 各自对应的字母",
    "ex11.not_a_letter": "不在 A-E 之中",
    "ex11.chose": "  {old}  ->  你选了 {given}（{modern}）",
    "ex11.loss_not_scalar": ("score_function_loss 应该返回只含一个元素、依赖于 probs（带 grad_fn）的张量，这样反向传播才能到达 "
                             "probs。"),
    "ex11.with_case": "probs={weights}，采样结果 [{index}]，奖励 {reward} 时：{message}",
    "ex11.hint_normalise": ("你的结果只改动了被采样的那一项：这是 2017 年的 reinforce，它把权重直接当成了概率。"
                            "先归一化：log(probs[sample] / probs.sum())。"),
    "ex11.through_softmax": "经过 softmax 的 logits.grad",
    "ex11.reinforce_2017": "经过同一个 softmax 的 2017 年版 reinforce",
    "ex11.score_passed": ("你的损失给出了今天的得分函数梯度 -reward * d log p(sample)；"
                          "经过 softmax 之后，它与 2017 年的 reinforce 给 logits 的梯度一致。"),
    # -- 12：检查点与性能分析 ----------------------------------------------------------------------------------
    "ex12.two_numbers": "两个整数：保留的激活值个数，以及 aten::addmm 的调用次数",
    "ex12.not_whole": "请给出两个不加引号的整数；收到的是 {activations} 和 {addmm_calls}。",
    "ex12.activations_wrong": ("  激活值：你的 {given}，实际是 {kept}。普通运行的前半段保留它的输入和四个 Tanh 的输出"
                               "（每个 Tanh 的输出同时也是下一个 Linear 的输入：只算一块缓冲区）；"
                               "检查点只保留它的输入，也就是第四个 Tanh 的输出，前面已经算过了。"),
    "ex12.calls_wrong": ("  aten::addmm 调用：你的 {given}，实际是 {calls}：前向计算中八次，"
                         "加上检查点那一半的 {recomputed} 个 Linear 层在反向传播中又运行一遍。"
                         "（Linear 的反向是 AddmmBackward0 这个节点，不是一次 aten::addmm 调用。）"),
    "ex12.passed": ("保留了 {kept} 个激活值而不是 9 个，代价是重新计算 {recomputed} 次矩阵乘法："
                    "检查点用它覆盖的那一半的内存，换来那一半多跑一次前向计算。"),
    # -- 14：广播 --------------------------------------------------------------------------------------------
    "ex14.call": "sum_to(形状为 {grad_shape} 的梯度, {shape})",
    "ex14.not_a_tensor": "sum_to 应该返回一个张量；对形状为 {grad_shape} 的梯度，它返回的是 {type}。",
    "ex14.hint_keepdim": ("数值也许对了，但形状不对：输入中大小为 1 的维度必须保留（用 keepdim=True 求和），"
                          "它没有的前导维度则必须去掉。"),
    "ex14.shape_wrong": "{call} 的形状是 {got}，但形状为 {shape} 的输入，其梯度也必须是这个形状。",
    "ex14.engine_sum_to": "引擎中的 sum_to",
    "ex14.sum_to_passed": "前导维度求和消去，大小为 1 的维度用 keepdim 求和：这正是引擎对每个被广播的输入的梯度所做的归约。",
    "ex14.two_grads": "x_grad 和 y_grad（嵌套列表，形状分别与 x、y 相同）",
    "ex14.not_nested": "{name} 应该是嵌套列表中的数，例如 [[0.0], [0.0]]；收到的是 {got}",
    "ex14.grad_shape": "{name} 的形状是 {shape}，但梯度的形状与它的输入相同，即 {expected}：乘积的 (2, 3) 梯度要求和还原回去。",
    "ex14.hint_three_terms": "提示：在乘积中，x 的每个元素都与 y 的全部三个元素相乘，所以它的梯度是三项之和。",
    "ex14.product_passed": ("x[i] 与每个 y[j] 相乘，所以 x.grad[i] = y.sum() = 6；y[j] 与每个 x[i] 相乘，所以 y.grad[j] = "
                            "x.sum() = 3。"),
    # -- 15：数值稳定性 ----------------------------------------------------------------------------------------
    "ex15.not_scalar": "{call} 应该返回只含一个元素的张量；收到的是 {got}",
    "ex15.builtin": "这就是 al.logsumexp 本身：请用 max、exp、sum 和 log 自己写出来，体会其中的技巧。",
    "ex15.overflow": ("logsumexp({values}) 在 float32 下给出 {value}，而答案是 {expected:.4f}：对输入取 exp 上溢了"
                      "（或者下溢到 0，而 0 的 log 是 -inf）。先减去最大的输入："
                      "log Σ exp(x) = m + log Σ exp(x - m)，其中 m = x.max()。"),
    "ex15.value_wrong": "{call} 给出 {value:.6g}，应为 {expected:.6g}。",
    "ex15.no_grad_fn": "没有梯度到达 x：结果没有 grad_fn。请用张量运算从 x 算出它，不要用 .item()、.numpy() 或 .detach()。",
    "ex15.backward_raised": "对 {call} 做反向传播时报错：{error}",
    "ex15.grad_none_x": "没有梯度到达 x：请用张量运算从 x 算出结果，不要用 .item() 或 .detach()。",
    "ex15.gradient_of": "{call} 的梯度",
    "ex15.logsumexp_passed": ("在 float32 下，输入从 -1000 到 1000，值都是有限的，梯度就是 softmax："
                              "把最大的输入提出来之后，exp 看到的数永远不超过 0。"),
    "ex15.distance_no_grad_fn": ("没有梯度到达 a：距离没有 grad_fn。请用张量运算从 a 算出它，不要用 .item()、.numpy() 或 "
                                 ".detach()。"),
    "ex15.grad_none_a": "没有梯度到达 a：请用张量运算从 a 算出距离。",
    "ex15.nan_at_zero": ("在 a == b 处梯度是 {grad}：sqrt 的导数 1 / (2 sqrt(s)) 在 s = 0 处是 inf，"
                         "而 inf 乘以 s 的零梯度得到 nan。在用不到的分支里让 sqrt 远离 0："
                         "safe = al.where(s > 0, s, 1.0)，再 al.where(s > 0, safe.sqrt(), 0.0)。"),
    "ex15.distance_grad": "a={a}、b={b} 处的 d distance / d a",
    "ex15.distance_reference": "(a - b) / distance，且在 a == b 处为 0",
    "ex15.distance_passed": "距离都对，而且在 a == b 处梯度是 0 而不是 nan。",
    "ex15.large": "梯度较大时",
    "ex15.small": "梯度较小时",
    "ex15.not_a_norm": "clip_grad_norm_ 应该返回总范数（一个数或只含一个元素的张量）；收到的是 {got}",
    "ex15.third_parameter": "第三个参数原本没有梯度，现在却有了：跳过 .grad 为 None 的参数。",
    "ex15.by_value": ("这是把每个元素截断到 [-1, 1]（按值裁剪，见第 6 课），会改变梯度的方向。"
                      "按范数裁剪是把所有梯度乘以同一个系数 max_norm / total_norm，方向保持不变。"),
    "ex15.one_by_one": ("现在每个参数的梯度范数都是 1：它们被逐个裁剪了。要限制的是所有参数的总范数 "
                        "sqrt(Σ ‖grad‖²)，并且每个梯度乘以同一个系数。"),
    "ex15.clipped_by_norm": "按总范数裁剪后的梯度",
    "ex15.norm_wrong": "{label}，返回的范数是 {got:.6g}；应该返回裁剪之前的总范数 {total:.6g}。",
    "ex15.clip_passed": ("所有梯度共用一个系数，只在总范数超过 max_norm 时才缩放；返回的是裁剪前的范数，"
                         "与 torch.nn.utils.clip_grad_norm_ 的做法相同。"),
    # -- 16：常见错误 ----------------------------------------------------------------------------------------
    "ex16.bug.zero_grad": "之前各步的梯度从来没有清零",
    "ex16.bug.data": "通过 .data 做的修改，版本计数器看不到",
    "ex16.bug.rebind": "参数被重新绑定到新张量上，而不是原地更新",
    "ex16.bug.detached": "损失没有回到参数的路径",
    "ex16.bug.broadcast": "预测和目标的形状不同，被悄悄广播了",
    "ex16.hint.a": "第二次调用开始时，.grad 里装的是什么？",
    "ex16.hint.b": "把形状打印出来：model(x).squeeze(1) 是 (N,)，y 是 (N, 1)。它们的差是什么形状？",
    "ex16.hint.c": "loss.backward() 之后，哪些张量有 .grad？顺着 loss.grad_fn 看一看。",
    "ex16.hint.d": "sigmoid 为反向传播保存了它的输出。谁能看出这个输出被改过了？",
    "ex16.hint.e": "优化器持有的是交给它的那些参数。它下一步更新的是哪些张量？",
    "ex16.one_of_each": "每一步各自对应的错误（{bugs} 之一）",
    "ex16.not_a_dict": "answers 应该是形如 {{'a': 'zero_grad', ...}} 的字典，收到的却是 {type}",
    "ex16.bug_named": "  {step}：{bug}",
    "ex16.case.whole": "整个模型的损失",
    "ex16.case.detached": "对隐藏层 .detach() 之后算出的损失",
    "ex16.case.item": "用 .item() 重新构造的损失",
    "ex16.case.bias": "只用到第一层偏置的损失",
    "ex16.not_names": "unreached 应该返回参数名的列表；对于{label}，它返回的是 {got}",
    "ex16.ran_backward": ("unreached 运行了反向传播（现在有参数带上了 .grad）：请改为遍历计算图，"
                          "从 loss.grad_fn 出发，经过 next_functions，走到各个 AccumulateGrad 节点。"),
    "ex16.misses": "漏掉了 {missing}",
    "ex16.lists": "列出了 {extra}，而反向传播其实能到达它们",
    "ex16.and": "，并且",
    "ex16.no_grad_fn": "这个损失根本没有 grad_fn：什么都到达不了。",
    "ex16.unreached_wrong": ("对于{label}：{detail}。{hint}请用身份 (is) 而不是值，"
                             "把各个 AccumulateGrad 节点的 .variable 与每个参数比较。"),
    "ex16.unreached_passed": ("现在你能在训练之前就判断，一个损失会训练哪些参数："
                              "被 detach 的张量、或由一个数重新构造的损失，都会表现为被漏掉的参数。"),
}
