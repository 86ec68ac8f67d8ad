"""第 00 到 07 课的检查器 (``course/ex00.py`` ... ``course/ex07.py``)。"""

MESSAGES = {
    # -- 00：为什么需要 autograd ------------------------------------------------------------------------------
    "ex00.at_x": "在 x={x:g} 处",
    "ex00.not_a_number": "central_difference 应该返回一个数，返回的却是 {type}",
    "ex00.slip": "在 x=1 处对 x**3 取 h=0.1，你的结果是 {got:.6g}，这是{slip}。应为 3.01。",
    "ex00.slip.forward": "前向差分 (f(x+h) - f(x)) / h：要向两边各走一步，到 x+h 和 x-h",
    "ex00.slip.backward": "后向差分 (f(x) - f(x-h)) / h：要向两边各走一步，到 x+h 和 x-h",
    "ex00.slip.twice": "中心差分的两倍：要除以 2h，也就是 x-h 和 x+h 之间的距离",
    "ex00.slip.undivided": "没有除以 2h 的差值",
    "ex00.coarse_wrong": "在 x=1 处对 x**3 取 h=0.1，你的结果是 {got:.6g}；(f(x+h) - f(x-h)) / 2h 应该得到 3.01。",
    "ex00.fine_wrong": "f={name}，x={x:g}，h=1e-5 时：你的结果是 {got:.8g}，应约为 {expected:.8g}。",
    "ex00.central_passed": "central_difference 与真实导数一致，误差随 h² 缩小。",
    "ex00.w_after_backward": "调用过 loss.backward() 之后的 w",
    "ex00.w_shape": "w 应该是含 2 个元素的张量：斜率 w[0] 和截距 w[1]。",
    "ex00.w_requires_grad": "w 需要 requires_grad=True，否则 autograd 什么都不记录，也就无从求导。",
    "ex00.w_grad_none": "w.grad 是 None：先用 w 算出 loss，再调用 loss.backward()。",
    "ex00.on_paper": "在纸上推导出的梯度",
    # -- 01：把子图排除在反向传播之外 ---------------------------------------------------------------------------
    "ex01.true_or_false": "每个表达式对应的 True 或 False",
    "ex01.not_a_dict": "answers 应该是形如 {{'a': True, ...}} 的字典，收到的却是 {type}",
    "ex01.no_answer": "{keys} 还没有作答。",
    "ex01.quoted": "每一项都用 True 或 False 回答，不要加引号（{shown}）：字符串 'False' 可不是布尔值 False。",
    "ex01.rule": "只要 autograd 记录的输入中至少有一个需要梯度，输出就需要梯度；反之则不需要。",
    "ex01.wrong_predictions": "{total} 个预测中有 {wrong} 个不对：",
    "ex01.wrong_prediction": "  {key} = {expression}：requires_grad 是 {actual}，你答的是 {given}",
    "ex01.the_model": "整个模型",
    "ex01.replaced": ("freeze_body 替换了 {names}：这道题要保留每一层（输出头也是预训练好的）。"
                      "请在现有参数上设置 requires_grad，而不是新建参数。"),
    "ex01.wrong_flags": "{total} 个参数中有 {wrong} 个的 requires_grad 不对：",
    "ex01.wrong_flag": "  {name}：requires_grad={flag}，应为 {right}",
    "ex01.stray": "反向传播仍然到达了 {names}",
    "ex01.frozen": "只有 fc.weight 和 fc.bias 需要梯度；反向传播之后，主干各参数的 .grad 仍是 None。",
    # -- 02：关闭梯度 -----------------------------------------------------------------------------------------
    "ex02.not_a_tensor": "evaluate 应该返回模型输出的张量，返回的却是 {type}",
    "ex02.still_off": ("evaluate 返回之后，梯度记录仍然是关闭的：请用 `with al.no_grad():` 代码块，"
                       "不要单独调用 al.set_grad_enabled(False)，这样离开代码块时会恢复原来的模式。"),
    "ex02.its_grad_fn": "它的 grad_fn 是 {node}",
    "ex02.it_requires_grad": "它需要梯度",
    "ex02.recorded": "输出被记录了（{recorded}）：请在 `with al.no_grad():` 或 `with al.inference_mode():` 中运行模型。",
    "ex02.saved_then_detached": ("输出没有 grad_fn，但计算它的时候有 {saved} 个张量被保存下来留给反向传播："
                                 "计算图先被记录、然后才被切断（用了 detach？），no_grad 本来能省下的内存和时间都白花了。"
                                 "请在 `with al.no_grad():` 中做前向计算，这样什么都不会记录。"),
    "ex02.no_eval": ("没有调用 model.eval()（或者又被撤销了）：Dropout 仍在随机丢弃激活值，输出是随机的。"
                     "请在前向计算之前调用 model.eval()。"),
    "ex02.eval_outputs": "模型在评估模式下的输出",
    "ex02.unchanged": "sgd_step 没有改变任何参数：在 `with al.no_grad():` 中，对 params 里的每个 p 原地减去 lr * p.grad。",
    "ex02.replaced": ("params[{i}] 被换成了一个新张量：请原地更新它（p -= ...，或 p.sub_(...)），"
                      "这样模型和优化器指向的仍是同一个参数。"),
    "ex02.not_a_leaf": ("params[{i}] 不再是叶子张量（它的 grad_fn 是 {node}）：这次更新被记录了。请在 `with al.no_grad():` "
                        "中更新。"),
    "ex02.no_requires_grad": "params[{i}] 不再需要梯度：下一次前向计算就不会训练它了。",
    "ex02.through_data": ("params[{i}] 的值变了，它的版本计数器却没变：更新是通过 .data 做的，autograd 看不到"
                          "（保存了这个参数的计算图察觉不到变化，反向传播可能悄悄地算出错误的梯度）。"
                          "请在 `with al.no_grad():` 中直接更新 p，这样版本检查仍然保护着你。"),
    "ex02.uphill": "params[{i}] 沿着梯度往上走了：要减去 lr * p.grad，损失才会下降。",
    "ex02.sgd_passed": "两个参数都原地移动了 -lr * grad，而且仍是需要梯度的叶子张量。",
    "ex02.scenario.a": "验证循环：计算预测和损失用于记录日志，从不调用 backward。",
    "ex02.scenario.b": "一个 train_or_eval(loader, train: bool) 函数，只在 train 为 True 时记录计算图。",
    "ex02.scenario.c": "通过 API 对外提供服务的模型：只做预测，结果永远不会进入训练计算。",
    "ex02.scenario.d": "在要反向传播的损失里，把当前的预测当作固定目标（例如教师模型的输出）。",
    "ex02.scenario.e": "让 Dropout 保留所有激活值，并让 BatchNorm 使用它的滑动统计量。",
    "ex02.why.a": "循环里的东西不会被之后的反向传播用到：no_grad 什么都不记录（这里 inference_mode 也可以）",
    "ex02.why.b": "set_grad_enabled(train) 把是否记录作为参数传入",
    "ex02.why.c": "结果不会再回到 autograd，所以 inference_mode 额外的节省（没有版本计数器、不跟踪视图）是安全的",
    "ex02.why.d": "detach() 把一个张量从计算图中切下来，损失的其余部分照常记录",
    "ex02.why.e": "model.eval() 改变的是各层的计算方式，并不停止记录",
    "ex02.hint.a": "这里算出的东西有没有被求导过？",
    "ex02.hint.b": "要不要记录，取决于一个调用函数时才知道的值。",
    "ex02.hint.c": "这里的结果再也不会进入 autograd，所以连簿记都省掉的最严格的模式也是安全的。",
    "ex02.hint.d": "只有一个张量需要不再携带历史；损失的其余部分仍要记录。",
    "ex02.hint.e": "这关系到各层如何计算，而不是要不要记录。",
    "ex02.one_of_each": "每个场景各自对应的选项（{choices} 之一）",
    "ex02.not_a_dict": "answers 应该是形如 {{'a': 'no_grad', ...}} 的字典，收到的却是 {type}",
    "ex02.because": "  {key}：{choice}，因为{why}",
    # -- 03：autograd 如何记录历史 ------------------------------------------------------------------------------
    "ex03.not_a_dict": "count_nodes 应该返回“节点名 -> 个数”的字典，返回的却是 {type}",
    "ex03.for_graph": "对于 {graph}：",
    "ex03.count": "  {name}：你的 {got}，应为 {expected}",
    "ex03.hint_visited": "提示：沿两条路径到达的节点仍是同一个节点；记住已经访问过的节点。",
    "ex03.count_passed": "你的遍历把每个节点只数了一次，共享的子表达式和用了两次的叶子张量也不例外。",
    "ex03.not_a_list": "leaves_reached 应该返回张量的列表（或集合），返回的却是 {type}",
    "ex03.not_tensors": "leaves_reached 应该返回张量：AccumulateGrad 的 .variable，而不是节点本身。",
    "ex03.leaves_wrong": ("对于 {graph}：少了 {missing} 个叶子张量，多了 {extra} 个。每个需要梯度的叶子张量"
                          "都有一个 AccumulateGrad 节点；不需要梯度的张量根本没有节点。"),
    "ex03.leaves_passed": "叶子张量恰好就是各个 AccumulateGrad 节点的 .variable。",
    # -- 04：保存的张量 ---------------------------------------------------------------------------------------
    "ex04.names_for_each_op": "每个运算保存的名字组成的集合（例如 {{'self', 'other'}}，什么都不保存就写 set()）",
    "ex04.not_a_dict": "answers 应该是值为集合的字典，收到的却是 {type}",
    "ex04.no_answer": "  {key} = {op}：还没有作答",
    "ex04.wrong_saves": "  {key} = {op}：你答的是 {given}，它保存的是 {expected}",
    "ex04.answers_off": "{total} 个答案中有 {wrong} 个不对：",
    "ex04.saves_passed": "每个节点保存的恰好是它的导数公式要读的东西，不多也不少。",
    "ex04.not_whole_bytes": "saved_bytes 应该返回一个整数字节数，返回的却是 {type}",
    "ex04.bytes_passed": ("{buffers} 块缓冲区共 {expected} 字节，尽管 autograd 保存了 {saved} 个张量："
                          "tanh 的输出既被 Tanh 保存（作为它的结果），又被下一个 Linear 保存（作为它的输入）。"),
    "ex04.hint_counted_twice": ("你把 {saved} 个保存的张量全部加了起来，但 tanh 的输出被保存了两次"
                                "（Tanh 和下一个 Linear 各一次），在内存里只是一块缓冲区：每个 data_ptr() 只算一次。"),
    "ex04.hint_elements": "你的结果是正确值的四分之一：要数字节数 (tensor.nbytes)，而不是元素个数（每个 float32 占 4 字节）。",
    "ex04.hint_nothing": "什么都没数到：请在 `with saved_tensors_hooks(pack, unpack):` 中运行 forward()。",
    "ex04.bytes_wrong": "你的结果是 {got} 字节；autograd 保留的缓冲区共占 {expected} 字节。",
    "ex04.your_hooks": "你的 pack 和 unpack 函数",
    "ex04.pack_none": "pack_hook 返回了 None：应该返回要保留的东西（float16 的张量）",
    "ex04.unpack_not_tensor": "unpack_hook 必须返回 Tensor，返回的却是 {type}",
    "ex04.unpack_dtype": ("对一个以 {wanted} 保存的张量，unpack_hook 返回了 dtype 为 {dtype} 的张量："
                          "要还原成保存时的 dtype（.to(al.float32)），否则反向传播的公式会混用不同的 dtype"),
    "ex04.hooks_raised": "用你的钩子运行模型时抛出了 {type}：{error}",
    "ex04.not_half": ("{total} 个打包后的值中有 {wrong} 个不是 float16（收到 {dtype}）："
                      "pack_hook 应该返回 tensor.to(al.float16)，或者一个 NumPy 的 float16 数组。"),
    "ex04.grad_none": "反向传播之后 {name}.grad 是 None",
    "ex04.grad_dtype": "{name}.grad 的类型是 {dtype}：unpack_hook 应该还原成 float32（.to(al.float32)）。",
    "ex04.exact_within_half": "精确的 float32 梯度（在 float16 的精度以内）",
    "ex04.half_passed": "所有 {saved} 个保存的张量都以 float16 保留，只占一半字节，梯度与精确值的差距在 float16 的精度以内。",
    # -- 05：一步一步看反向传播 ---------------------------------------------------------------------------------
    "ex05.hint_times_v": "提示：这只是 3x²；backward(gradient=v) 还要逐元素乘以 v。",
    "ex05.stale": ("之前某一步留下的 .grad 还在（每个梯度都比应有的值多 1）："
                   "在处理第一份之前，用 model.zero_grad() 清零一次"),
    "ex05.unscaled": ("每一份的损失是它那一片数据上的平均值，所以 {parts} 次反向传播加起来是整批梯度的 {parts} 倍："
                      "把每一份的损失除以 parts"),
    "ex05.unscaled_and_stale": "{unscaled}；另外，{stale}",
    "ex05.cleared": "只剩下最后一份的梯度：循环里的 model.zero_grad() 把前面几份累加的梯度清掉了。只在循环之前清零一次",
    "ex05.cleared_and_unscaled": "{cleared}（并且把每一份的损失除以 parts）",
    "ex05.calls": "accumulate 调用了 {calls} 次 backward；parts=3 时应该每份调用一次。",
    "ex05.grad_none": "{name}.grad 是 None：accumulate 是不是在反向传播之后把梯度设成了 None？",
    "ex05.not_full_batch": "这不是整批数据的梯度：{why}。",
    "ex05.full_batch": "整批数据的梯度",
    "ex05.accumulate_passed": "对三分之一批数据各做一次反向传播，在 .grad 中累加起来，就得到整批数据的梯度。",
    # -- 06：钩子 ---------------------------------------------------------------------------------------------
    "ex06.your_hook": "你的钩子函数",
    "ex06.changed_argument": ("clip_hook 原地修改了它的参数。钩子不能修改它收到的梯度"
                              "（其他钩子和引擎还要用它）：请返回一个新张量，例如 grad.clamp(-1, 1)。"),
    "ex06.returned_none": "clip_hook 返回了 None，这等于告诉 autograd 梯度保持不变。请返回裁剪后的梯度。",
    "ex06.not_a_tensor": "clip_hook 应该返回一个 Tensor（新的梯度），返回的却是 {type}。",
    "ex06.clamped": "截断到 [-1, 1] 的梯度",
    "ex06.x_grad_in_graph": "x.grad（钩子注册在 h = x * 1 上）",
    "ex06.clipped": "裁剪后的梯度 [1, -0.5, -1]",
    "ex06.clip_passed": "clip_hook 把每个元素裁剪到 [-1, 1]；在计算图中，到达 x 的正是裁剪后的梯度。",
    "ex06.labels_in_order": "标签列表，按你预期的触发顺序排列",
    "ex06.not_a_list": "请给出字符串列表，例如 ['h hook', ...]。",
    "ex06.six_labels": "六个标签，按你预期的触发顺序排列",
    "ex06.unknown_labels": "不认识的标签 {unknown}。请只用这些：{labels}。",
    "ex06.each_once": "这 {total} 个标签每个恰好触发一次；你的列表有 {given} 项",
    "ex06.and_misses": "，缺少 {missing}。",
    "ex06.full_stop": "。",
    "ex06.order_passed": ("张量钩子在它所属节点的前置钩子 (pre-hook) 之前运行，然后节点本身运行，再运行节点的后置钩子；"
                          "叶子张量的钩子在累加 .grad 之前运行，累加后钩子在之后。"),
    "ex06.first_wrong": ("在第 {position} 个位置你写的是 {given}，但那里触发的是 {actual}。"
                         "反向传播从损失走向叶子张量，在每个张量处依次是：它的钩子、它的 grad_fn 的前置钩子、"
                         "节点本身、节点的后置钩子。"),
    "ex06.first_wrong_after": ("前 {position} 个标签是对的；在第 {position} 个位置你写的是 {given}，"
                               "但那里触发的是 {actual}。反向传播从损失走向叶子张量，在每个张量处依次是："
                               "它的钩子、它的 grad_fn 的前置钩子、节点本身、节点的后置钩子。"),
    "ex06.your_sgd_in_backward": "你的 sgd_in_backward 函数",
    "ex06.not_a_hook": "sgd_in_backward(lr) 应该返回钩子（一个以参数为输入的函数），返回的却是 {type}。",
    "ex06.hook_raised": "反向传播时你的钩子里抛出了 {type}：{error}",
    "ex06.not_updated": ("{name} 没有被更新：钩子应该原地修改参数，例如 param.sub_(lr * param.grad)"
                         "（钩子在 无梯度模式下运行，所以可以这样修改叶子张量）。"),
    "ex06.after_backward": "反向传播之后的 {name}",
    "ex06.plain_sgd": "普通的一步 SGD：param - lr * grad",
    "ex06.grad_kept": ("{name} 更新正确，但 {name}.grad 仍然保留着。请在钩子里释放它（param.grad = None）："
                       "正是这样，每个梯度用完就立即释放。"),
    "ex06.sgd_passed": "每个参数都在反向传播过程中完成了 SGD 的一步，之后没有保留任何梯度。",
    # -- 07：原地操作与版本计数器 -------------------------------------------------------------------------------
    "ex07.versions_dict": "形如 {{'base': 0, 'row': 0, 'copy': 0}} 的字典",
    "ex07.number_for_each": "{names} 各自的一个数",
    "ex07.whole_numbers": "每个版本号都写成不加引号的整数：{shown}。",
    "ex07.versions_passed": ("视图与它的基张量共享计数器（对任何一个做原地操作，两者都加一），clone 出来的张量从 0 开始"
                             "有自己的计数器，而 base[0] = 5.0 这样的赋值也是原地操作。"),
    "ex07.version": "  {name}：你的 {given}，实际是 {actual}",
    "ex07.hint_view": "提示：row 是 base 的视图，它们数的是同一批原地操作。把 add_、mul_ 和按下标赋值都数上。",
    "ex07.hint_clone": "提示：clone() 分配新的内存，带一个从 0 开始的新计数器。",
    "ex07.your_fixed": "你的 fixed 函数",
    "ex07.fixed_none": "fixed(x) 返回了 None：写好函数体，让它像 buggy(x) 一样返回那个和。",
    "ex07.fixed_not_scalar": "fixed(x) 应该像 buggy(x) 一样返回只含一个元素的张量（那个和）。",
    "ex07.buggy_value": "buggy(x) 的值",
    "ex07.fixed_no_grad_fn": "fixed(x) 返回的数对了，但没有 grad_fn：不要 detach，也不要用 no_grad。",
    "ex07.still_raises": ("对 fixed(x) 做反向传播仍然报错：\n{error}\n"
                          "把原地操作换成非原地的写法（s = s * 2），或者在修改之前先 clone。"),
    "ex07.changed_x": "fixed(x) 原地修改了它的输入 x；不应该动 x。",
    "ex07.gradient_of_sum": "sum(2 * sigmoid(x) * x) 的梯度",
    "ex07.fixed_passed": "值与 buggy(x) 相同，反向传播也能运行了：x.grad 一致。",
    "ex07.bools_dict": "由 True/False 组成的字典，每段代码一个",
    "ex07.true_or_false_for": "{names} 各自的 True 或 False",
    "ex07.quoted": "每一项都用 True 或 False 回答，不要加引号：{shown}（字符串 'False' 可不是布尔值 False）。",
    "ex07.runs": "  {name}：运行时不报错（你说它会报错）。",
    "ex07.raises": "  {name}：会报错（你说它能运行）：{error}",
    "ex07.raises_passed": ("需要梯度的叶子张量拒绝原地操作（在 no_grad 下除外）；而一个张量在被节点保存之后又被修改，"
                           "即使是通过视图修改的，反向传播也会拒绝它。"),
    "ex07.hint_saved": ("提示：对每个运算问一问，它有没有保存后来被修改的那个张量（exp 保存结果，add 什么都不保存，sin "
                        "保存输入）。"),
}
