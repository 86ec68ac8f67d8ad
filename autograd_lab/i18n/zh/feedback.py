"""所有检查器共用的话 (``course/_feedback.py``)，以及“自己动手”系列的公共检查 (``course/_build.py``)。"""

MESSAGES = {
    "list.separator": "、",
    # -- 检查结果在 notebook 里的样子 -----------------------------------------------------------------------
    "feedback.correct": "正确！",
    "feedback.not_yet": "还不对。",
    "feedback.shown": "{mark}{message}",
    "feedback.replace_placeholder": "把 `...` 换成{what}，然后重新运行这个单元格。",
    "feedback.replace_value": "把 `...` 换成 {name} 的值，然后重新运行这个单元格。",
    "feedback.your_function": "你的函数",
    "feedback.your_named_function": "你的 {name} 函数",
    "feedback.backward_raised": "backward 抛出了 {type}：{error}",
    "feedback.n_wrong": "{total} 个中有 {wrong} 个不对：",
    "feedback.not_callable": "{what} 应该是一个函数，收到的却是 {type}。",
    "feedback.raised": "{what} 抛出了 {type}：{error}",
    # -- answers given as a dict of choices (notebooks 02, 16) --------------------------------------------
    "feedback.no_answer_yet": "  {key}：还没有作答",
    "feedback.not_one_of": "  {key}：{given} 不在 {choices} 之中",
    "feedback.not_this": "  {key}：不是 {given}。提示：{hint}",
    "feedback.another_look": "{total} 个答案中有 {wrong} 个需要再想想：",
    "feedback.graph_shared_h": "(h * h + h).sum()，其中 h = (x * w).exp()",
    # -- compare_arrays ------------------------------------------------------------------------------------
    "feedback.expected_values": "预期的值",
    "feedback.not_numbers": "{name} 应该是数值（张量、数组或一个数），收到的却是 {type}：{error}",
    "feedback.shape": "{name} 的形状是 {got}，应为 {expected}。",
    "feedback.not_finite": "{name} 在 {where} 处出现了非有限值（nan 或 inf）。",
    "feedback.the_value": "（这个值）",
    "feedback.and_more": " 等，另有 {count} 处",
    "feedback.matches": "{name} 与{reference}一致。",
    "feedback.differ": "{name}：{size} 个元素中有 {wrong} 个与{reference}不同：",
    "feedback.element": "  {name}{where}：你的 {got}，应为 {expected}",
    "feedback.more_elements": "  …… 另有 {count} 个",
    "feedback.hint_sign": "提示：每个值的符号都反了。",
    "feedback.hint_factor": "提示：每个值都是预期值的 {factor} 倍（是不是少乘或多乘了一个系数？）。",
    "feedback.hint_transpose": "提示：你的答案是预期答案的转置。",
    # -- “自己动手”系列的公共检查 (course/_build.py) -------------------------------------------------------
    "build.a_value_of_type": "一个 {type}",
    "build.your_tensor_class": "你的 Tensor 类",
    "build.not_a_class": "第二个参数应该是你的 Tensor 类，收到的却是 {type}。",
    "build.hint_saved_name": ("提示：节点上只有它的运算函数通过 record(..., name=value) 交给它的东西；"
                              "用 saved(self, 'name') 按同一个名字读取。"),
    "build.hint_recursion": ("提示：Python 的嵌套调用大约到 1000 层就会停下。遍历图时请把列表当作栈来用"
                             "（append 和 pop），不要写调用自身的函数。"),
    "build.no_grad_fn": "{label} 没有 grad_fn，可它的输入需要梯度：这个运算没有被记录下来。",
    "build.backward_none": "{node}.backward 返回了 None：应该为每个输入返回一个梯度，放在元组里（这里是 {inputs} 个）。",
    "build.backward_not_tuple": ("{node}.backward 返回的是 {type}，不是元组：只有一个输入时，"
                                 "写成 return (grad_x,)，别漏了逗号。"),
    "build.backward_count": ("{node}.backward 返回了 {grads} 个梯度，但这个节点有 {inputs} 个输入："
                             "每个输入一个梯度，顺序与 next_functions 相同。"),
    "build.grad_none": "{name} 是 None，而 autograd_lab 给出的是 {expected}：没有梯度传到它那里。",
    "build.hint_upstream": "提示：要乘以 grad，也就是从上游传来的梯度（链式法则）：你的值只是局部导数本身。",
}
